import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { PORT } from '../../playwright.config';
import { createCliTarget } from '../../fixtures/demo-org';

const uid = () => randomBytes(4).toString('hex');
const nested = (n: number) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown;
const nestedText = (n: number) => '['.repeat(n) + ']'.repeat(n);

let ci: string;
let cluster: string;

test.beforeAll(async ({ request }) => {
  test.setTimeout(180_000); // two admin CLI runs (tsx start-up) on a busy machine
  ({ ci, cluster } = await createCliTarget(request, 'body'));
});

/**
 * POSTs with node:http and takes the status line even when the server answers before the body is sent
 * (as curl does); Playwright's client reports ECONNRESET instead.
 */
function postStatus(url: string, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      new URL(url, `http://127.0.0.1:${PORT}`),
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          authorization: `Bearer ${ci}`,
        },
      },
      (res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
      },
    );
    // EPIPE/ECONNRESET after the early answer; a reset before any answer resolves 0 (fails, never hangs).
    req.on('error', () => setTimeout(() => resolve(0), 500));
    req.end(body);
  });
}

/** The server answers 413 at once and closes; a client still writing may see the reset first: try again. */
async function postStatusRetrying(url: string, body: string): Promise<number> {
  let status = 0;
  for (let i = 0; i < 4 && status === 0; i++) status = await postStatus(url, body);
  return status;
}

test('a body above the limit gets 413 on /api/v1 and /api/trpc (2 MB and 5 MB)', async () => {
  for (const mb of [2, 5]) {
    const data = JSON.stringify({ cluster, workload: 'x', params: { pad: 'x'.repeat(mb * 1024 * 1024) } });
    for (const url of ['/api/v1/runs', '/api/trpc/runs.create'])
      expect(await postStatusRetrying(url, data), `${url} ${mb} MB`).toBe(413);
  }
});

test('JSON nested deeper than 64 gets 400 naming the problem; 2,500 deep never reaches the parser', async ({
  request,
}) => {
  for (const depth of [100, 2500]) {
    for (const url of ['/api/v1/runs', '/api/trpc/runs.create']) {
      const res = await request.post(url, {
        headers: { authorization: `Bearer ${ci}`, 'content-type': 'application/json' },
        data: `{"cluster":"${cluster}","workload":"deep-${uid()}","params":{"p":${nestedText(depth)}}}`,
      });
      const text = await res.text();
      expect(res.status(), `${url} depth ${depth}: ${text.slice(0, 200)}`).toBe(400);
      expect(text).toMatch(/nested deeper than 64/);
    }
  }
  // tRPC GET input too.
  const q = await request.get(
    `/api/trpc/runs.list?input=${encodeURIComponent(JSON.stringify(nested(100)))}`,
    {
      headers: { authorization: `Bearer ${ci}` },
    },
  );
  expect(q.status()).toBe(400);
});

test('ordinary and bulk bodies still pass: 10 levels of params, a 2 MB run output', async ({ request }) => {
  const created = await request.post('/api/v1/runs', {
    headers: { authorization: `Bearer ${ci}` },
    data: { cluster, workload: `ok-${uid()}`, tool: 'pgbench', params: { p: nested(10) } },
  });
  expect(created.status(), await created.text()).toBe(200);
  const { id } = await created.json();
  const out = await request.post(`/api/v1/runs/${id}/output`, {
    headers: { authorization: `Bearer ${ci}` },
    data: { output: 'tps = 1\n'.repeat(256 * 1024) },
  });
  expect(out.status(), (await out.text()).slice(0, 200)).toBeLessThan(500);
  expect(out.status()).not.toBe(413);
});
