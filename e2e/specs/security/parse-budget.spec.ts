/**
 * A crafted benchmark output cannot freeze the server (issue 36 §2): 8 MB adversarial outputs for several
 * parsers posted as text/plain with a runs:write token, while a separate thread asks /api/health every 50 ms.
 * Every health answer comes within 200 ms, and each post gets a 2xx or its 422 "could not be parsed in time".
 */
import http from 'node:http';
import { Worker } from 'node:worker_threads';
import { expect, test } from '@playwright/test';
import { PORT } from '../../playwright.config';
import { createCliTarget } from '../../fixtures/demo-org';

const MB = 1024 * 1024;
const HEALTH_BUDGET_MS = 200;

/** Outputs that made the backtracking parsers take seconds per 100 KB, grown to 8 MB. */
const ADVERSARIAL: { tool: string; body: () => Buffer }[] = [
  { tool: 'hey', body: () => Buffer.from(`Summary:\n${' '.repeat(8 * MB - 10)}x`) },
  { tool: 'fio', body: () => Buffer.from(` |${'1'.repeat(8 * MB - 2)}`) },
  { tool: 'sysbench', body: () => Buffer.from(`${' '.repeat(8 * MB - 2)}x\n`) },
  // Many short lines: per-line work, not one long line.
  { tool: 'sysbench', body: () => Buffer.from(`${' '.repeat(60)}x:\n`.repeat(Math.floor((8 * MB) / 63))) },
];

/** /api/health every 50 ms from its own thread (the test's own event loop sends 8 MB meanwhile). */
function startPoller(port: number) {
  const w = new Worker(
    `
    const { parentPort } = require('node:worker_threads');
    const http = require('node:http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const times = [];
    let stop = false;
    parentPort.on('message', () => { stop = true; });
    const ask = () => new Promise((resolve) => {
      const t0 = performance.now();
      const req = http.get({ host: '127.0.0.1', port: ${port}, path: '/api/health', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode }));
      });
      req.on('error', (e) => resolve({ ms: performance.now() - t0, status: 0, err: e.message }));
    });
    (async () => {
      while (!stop) {
        const next = performance.now() + 50;
        times.push(await ask());
        const wait = next - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      parentPort.postMessage(times);
    })();
    `,
    { eval: true },
  );
  return {
    stop: () =>
      new Promise<{ ms: number; status: number; err?: string }[]>((resolve) => {
        w.once('message', (times) => resolve(times as { ms: number; status: number }[]));
        w.postMessage('stop');
      }).finally(() => void w.terminate()),
  };
}

function postText(path: string, token: string, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: PORT,
        path,
        method: 'POST',
        headers: {
          'content-type': 'text/plain',
          'content-length': String(body.byteLength),
          authorization: `Bearer ${token}`,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let ci: string;
let admin: string;
let cluster: string;

test.beforeAll(async ({ request }) => {
  test.setTimeout(180_000); // two admin CLI runs (tsx start-up) on a busy machine
  ({ ci, admin, cluster } = await createCliTarget(request, 'parse-budget'));
});

test('8 MB adversarial outputs keep /api/health under 200 ms throughout', async ({ request }) => {
  test.setTimeout(300_000);
  for (const { tool, body } of ADVERSARIAL) {
    const created = await request.post('/api/v1/runs', {
      headers: { authorization: `Bearer ${ci}` },
      data: { cluster, workload: `budget-${tool}`, tool },
    });
    expect(created.status(), await created.text()).toBe(200);
    const { id } = (await created.json()) as { id: string };
    const bytes = body();
    expect(bytes.byteLength).toBeGreaterThan(7.9 * MB);

    const poller = startPoller(PORT);
    await new Promise((r) => setTimeout(r, 200));
    const res = await postText(`/api/v1/runs/${id}/output?tool=${tool}`, ci, bytes);
    await new Promise((r) => setTimeout(r, 200));
    const times = await poller.stop();

    if (res.status === 422) expect(res.text, tool).toMatch(/could not be parsed in time|recognised/);
    else expect(res.status, `${tool}: ${res.text.slice(0, 300)}`).toBeLessThan(300);
    expect(times.length, tool).toBeGreaterThan(4);
    expect(
      times.filter((t) => t.status !== 200),
      tool,
    ).toEqual([]);
    const worst = Math.max(...times.map((t) => t.ms));
    console.log(`${tool}: HTTP ${res.status}, ${times.length} health answers, worst ${worst.toFixed(0)} ms`);
    expect(worst, `${tool}: slowest /api/health answer (ms) while the output was posted`).toBeLessThan(
      HEALTH_BUDGET_MS,
    );
  }
  void admin;
});

test('a 64 MB body is a 413 naming the limit, and the server stays up', async () => {
  const bytes = Buffer.alloc(64 * MB, 0x20);
  const created = await fetch(`http://127.0.0.1:${PORT}/api/v1/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ci}`, 'content-type': 'application/json' },
    body: JSON.stringify({ cluster, workload: 'budget-64', tool: 'hey' }),
  });
  const { id } = (await created.json()) as { id: string };
  for (const chunked of [false, true]) {
    const res = await new Promise<{ status: number; text: string }>((resolve) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: PORT,
          path: `/api/v1/runs/${id}/output`,
          method: 'POST',
          headers: {
            'content-type': 'text/plain',
            authorization: `Bearer ${ci}`,
            ...(chunked ? {} : { 'content-length': String(bytes.byteLength) }),
          },
        },
        (r) => {
          let text = '';
          r.on('data', (c: Buffer) => (text += c.toString()));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, text }));
        },
      );
      // The server answers before the body is sent and closes: a reset after the answer is expected.
      req.on('error', () => undefined);
      if (chunked) for (let i = 0; i < 64; i++) req.write(bytes.subarray(i * MB, (i + 1) * MB));
      req.end(chunked ? undefined : bytes);
    });
    expect(res.status, `chunked=${chunked}`).toBe(413);
    expect(res.text).toMatch(/request body exceeds 8192 KB/);
  }
  const health = await fetch(`http://127.0.0.1:${PORT}/api/health`);
  expect(health.status).toBe(200);
});
