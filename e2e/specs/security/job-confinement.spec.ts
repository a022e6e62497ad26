/**
 * Issue 11 §6: a real agent with jobs.allowed_hosts [127.0.0.1], a work dir and max_file_bytes 64MiB
 * advertises them; the server answers 422 with the reason for runs outside them (metadata/link-local,
 * a host not listed, a directory elsewhere, a file over the cap); a run the server cannot check
 * (`secret:<name>` resolved on the agent) is refused by the agent itself; a run inside the limits succeeds.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { signIn } from '../../fixtures/auth';
import { enrollJobAgent, startJobAgent } from '../../fixtures/job-agent';
import { BASE_URL } from '../../playwright.config';

const ORG = 'demo';
const CLUSTER = 'sec-confine';
const AGENT = 'e2e-confined-agent';

let token = '';
/** The agent's own credential (agent job routes refuse every other token). */
let agentToken = '';
let work = '';
let agent: ChildProcess | undefined;
let agentLog = '';

async function api(request: APIRequestContext, method: string, p: string, data?: unknown) {
  const res = await request.fetch(`${BASE_URL}/api/v1${p}`, {
    method,
    headers: { authorization: `Bearer ${token}` },
    data,
  });
  const text = await res.text();
  return {
    status: res.status(),
    text,
    body: (text ? JSON.parse(text) : undefined) as Record<string, unknown>,
  };
}

async function workload(request: APIRequestContext, body: Record<string, unknown>) {
  const r = await api(request, 'POST', '/workloads', { durationS: 2, params: {}, ...body });
  expect(r.status, r.text).toBe(200);
  return r.body.id as string;
}

const start = (request: APIRequestContext, id: string) =>
  api(request, 'POST', `/workloads/${id}/runs`, { cluster: CLUSTER });

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  const page = await browser.newPage();
  await signIn(page);
  ({ token, agentToken, work } = await enrollJobAgent(page, { org: ORG, cluster: CLUSTER, name: AGENT }));
  fs.writeFileSync(
    path.join(work, 'agent.yaml'),
    [
      'interval: 1s',
      'metrics: { listen: false }',
      'inputs: { host: false }',
      'jobs:',
      '  enabled: true',
      '  wait: 5s',
      '  lease: 6s',
      '  grace: 1s',
      `  work_dir: ${path.join(work, 'jobs')}`,
      '  allowed_hosts: [127.0.0.1]',
      '  max_file_bytes: 64MiB',
      '  secrets: { meta: "http://169.254.169.254/latest/meta-data/" }',
      '',
    ].join('\n'),
  );
  const o = { base: BASE_URL, token: agentToken, cluster: CLUSTER, host: AGENT, workDir: work };
  agent = startJobAgent(o, (d) => (agentLog += d));
  // Wait for the agent's first heartbeat (its capabilities), so the server knows it.
  await expect
    .poll(
      async () => {
        const r = await page.request.get('/api/trpc/agents.list', { headers: { 'x-org': ORG } });
        const rows = (await r.json()).result?.data as { name: string; capabilities: string[] }[] | undefined;
        return rows?.find((a) => a.name === AGENT)?.capabilities ?? [];
      },
      { timeout: 30_000, message: agentLog },
    )
    .toEqual(expect.arrayContaining(['hey', 'wrk', 'fio', 'sysbench', 'pgbench']));
  await page.close();
});

test.afterAll(async () => {
  agent?.kill('SIGKILL');
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('the heartbeat advertises allowed dirs, allowed hosts and the file size cap', async ({ page }) => {
  await signIn(page);
  const r = await page.request.get('/api/trpc/agents.list', { headers: { 'x-org': ORG } });
  const rows = (await r.json()).result.data as { name: string; jobLimits: unknown }[];
  expect(rows.find((a) => a.name === AGENT)?.jobLimits).toEqual({
    allowedDirs: [path.join(work, 'jobs')],
    allowedHosts: ['127.0.0.1'],
    maxFileBytes: 64 * 1024 ** 2,
  });
});

test('the server answers 422 naming the reason for runs outside what the agent allows', async ({
  request,
}) => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ tool: 'hey', target: 'http://169.254.169.254/latest/meta-data/' }, /169\.254\.169\.254 is a link-local or metadata address/],
    [{ tool: 'hey', target: 'http://[::ffff:a9fe:a9fe]/' }, /link-local or metadata/],
    [{ tool: 'wrk', target: 'http://metadata.google.internal/' }, /link-local or metadata/],
    [{ tool: 'hey', target: 'http://evil.example/' }, /evil\.example is not in the agent's jobs\.allowed_hosts \(127\.0\.0\.1\)/],
    [{ tool: 'pgbench', target: 'postgresql://u@10.1.2.3:5432/db' }, /10\.1\.2\.3 is not in/],
    [{ tool: 'fio', target: '/etc' }, /directory \/etc is outside the agent's jobs\.allowed_dirs/],
    [{ tool: 'fio', params: { size: '1G' } }, /writes 1 GiB, more than the agent's jobs\.max_file_bytes/],
    [{ tool: 'sysbench', params: { test: 'fileio', fileTestMode: 'seqwr' } }, /2 GiB, more than/],
  ]; // prettier-ignore
  for (const [i, [w, reason]] of cases.entries()) {
    const id = await workload(request, { name: `sec-confine-${i}`, ...w });
    const r = await start(request, id);
    expect(r.status, `${JSON.stringify(w)}: ${r.text}`).toBe(422);
    expect(String(r.body.message), JSON.stringify(w)).toMatch(reason);
  }
});

test('the agent refuses on its own what the server cannot see (secret:<name>); allowed runs succeed', async ({
  request,
}) => {
  test.setTimeout(90_000);
  const progress = async (id: string) => (await api(request, 'GET', `/runs/${id}/progress`)).body;
  const hidden = await start(request, await workload(request, { name: 'sec-confine-secret', tool: 'hey', target: 'secret:meta' })); // prettier-ignore
  expect(hidden.status, hidden.text).toBe(200);
  const ok = await start(request, await workload(request, { name: 'sec-confine-ok', tool: 'hey', target: `${BASE_URL}/api/health` })); // prettier-ignore
  expect(ok.status, ok.text).toBe(200);
  await expect
    .poll(async () => (await progress(hidden.body.id as string)).status, {
      timeout: 45_000,
      message: agentLog,
    })
    .toBe('failed');
  expect(String((await progress(hidden.body.id as string)).error)).toMatch(
    /refused by this agent's job limits: host 169\.254\.169\.254 is a link-local or metadata address/,
  );
  await expect
    .poll(async () => (await progress(ok.body.id as string)).status, { timeout: 45_000, message: agentLog })
    .toBe('succeeded');
});
