/**
 * Trigger benchmark runs from the dashboard, for real: a local agent process with the job loop claims runs
 * queued from the UI, runs pgbench / sysbench / hey against the app's own embedded PostgreSQL and
 * /api/health (loopback only, 5–8 s runs), streams samples live, finishes with a parsed summary; then
 * compare, cancel, the health gate, and lease-expiry recovery after `kill -9` of the agent.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';
import { enrollJobAgent, startJobAgent } from '../../fixtures/job-agent';
import { BASE_URL, DATA_DIR } from '../../playwright.config';

const ORG = 'demo';
const CLUSTER = 'trigger-local';
const AGENT = 'e2e-trigger-agent';
const LEASE_S = 6;

test.describe.configure({ mode: 'serial' });

let token = '';
/** The agent's own credential (Settings → Agents → Add agent): only it may claim the agent's jobs. */
let agentToken = '';
let pgUrl = '';
let agent: ChildProcess | undefined;
let agentLog = '';
let work = '';
const runIds: string[] = [];

function pgUrlFromMeta(): string {
  const meta = JSON.parse(fs.readFileSync(path.join(DATA_DIR, 'postgres.json'), 'utf8')) as {
    user: string;
    password: string;
    port: number;
  };
  return `postgresql://${meta.user}:${encodeURIComponent(meta.password)}@127.0.0.1:${meta.port}/postgres`;
}

async function api<T>(
  request: APIRequestContext,
  method: 'GET' | 'POST',
  p: string,
  data?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await request.fetch(`${BASE_URL}/api/v1${p}`, {
    method,
    headers: { authorization: `Bearer ${token}` },
    data,
  });
  const text = await res.text();
  return { status: res.status(), body: (text ? JSON.parse(text) : undefined) as T };
}

type TProgress = { status: string; samples: number; error: string | null; agent: string | null };
const progress = async (request: APIRequestContext, id: string) =>
  (await api<TProgress>(request, 'GET', `/runs/${id}/progress`)).body;

function startAgent() {
  agentLog = '';
  const o = { base: BASE_URL, token: agentToken, cluster: CLUSTER, host: AGENT, workDir: work };
  return startJobAgent(o, (d) => (agentLog += d));
}

async function createWorkload(request: APIRequestContext, body: Record<string, unknown>) {
  const r = await api<{ id: string }>(request, 'POST', '/workloads', body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.id;
}

/** Presses Run on the workloads list and starts on our cluster; resolves on the run page. */
async function runFromUi(page: Page, workload: string): Promise<{ id: string; pressedAt: number }> {
  await page.goto(`/${ORG}/workloads`);
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: workload, exact: true }) });
  await row.getByRole('button', { name: `Run ${workload}` }).click();
  const form = row.getByRole('form', { name: `Start ${workload}` });
  await form.locator('select[name=cluster]').selectOption({ label: CLUSTER });
  const pressedAt = Date.now();
  await form.getByRole('button', { name: 'Start run' }).click();
  await page.waitForURL(new RegExp(`/${ORG}/runs/[a-z0-9]+$`));
  const id = page.url().split('/').pop()!;
  runIds.push(id);
  return { id, pressedAt };
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  const page = await browser.newPage();
  await signInPatiently(page);
  ({ token, agentToken, work } = await enrollJobAgent(page, { org: ORG, cluster: CLUSTER, name: AGENT }));
  await page.close();
  pgUrl = pgUrlFromMeta();
  fs.writeFileSync(
    path.join(work, 'agent.yaml'),
    [
      'interval: 2s',
      'metrics: { listen: false }',
      'inputs: { host: false }',
      'jobs:',
      '  enabled: true',
      '  wait: 10s',
      `  lease: ${LEASE_S}s`,
      '  grace: 2s',
      `  work_dir: ${path.join(work, 'jobs')}`,
      // Job confinement: this agent may reach only the app and its PostgreSQL on loopback.
      '  allowed_hosts: [127.0.0.1]',
      '',
    ].join('\n'),
  );
  agent = startAgent();
});

test.afterAll(async () => {
  agent?.kill('SIGKILL');
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('pgbench from the UI: live samples, parsed summary; a second run compares', async ({
  page,
  request,
}) => {
  test.setTimeout(150_000);
  await signInPatiently(page);
  // Create the workload through the form.
  await page.goto(`/${ORG}/workloads/new`);
  const form = page.getByRole('form', { name: 'Workload' });
  await form.locator('input[name=name]').fill('e2e-pgbench');
  await form.locator('select[name=tool]').selectOption('pgbench');
  await form.getByLabel('Clients (-c)').fill('2');
  await form.getByLabel('Scale (init)').fill('1');
  await form.getByLabel('Initialise tables first (pgbench -i)').check();
  await form.locator('input[name=target]').fill('--foo; rm -rf /');
  await expect(form.getByRole('list', { name: 'Problems' })).toContainText('target');
  await expect(form.getByRole('button', { name: 'Create workload' })).toBeDisabled();
  await form.locator('input[name=target]').fill(pgUrl);
  await form.getByLabel('Duration (s)').fill('8');
  await form.getByRole('button', { name: 'Create workload' }).click();
  await page.waitForURL(new RegExp(`/${ORG}/workloads$`));
  await expect(page.getByRole('link', { name: 'e2e-pgbench', exact: true })).toBeVisible();

  const { id, pressedAt } = await runFromUi(page, 'e2e-pgbench');
  await expect(page.getByRole('region', { name: 'Run controls' }).getByTestId('run-status')).toBeVisible();
  // Live: the sample count on screen grows while the run is running.
  await expect(page.getByTestId('sample-count')).not.toHaveText(/^0 samples$/, { timeout: 30_000 });
  const firstSampleMs = Date.now() - pressedAt;
  console.log(`[trigger] Run pressed → first sample on screen: ${firstSampleMs} ms`);
  await expect(page.getByRole('region', { name: 'Transactions/s' })).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole('region', { name: 'Run controls' }).getByTestId('run-status')).toHaveText(
    'succeeded',
    { timeout: 60_000 },
  );
  const summary = page.getByRole('table', { name: 'Summary' });
  await expect(summary).toContainText('tps', { timeout: 10_000 });
  const p = await progress(request, id);
  expect(p.samples).toBeGreaterThanOrEqual(5);
  expect(p.agent).toBe(AGENT);

  // A second run of the same workload, then compare the two.
  const second = await runFromUi(page, 'e2e-pgbench');
  await expect(page.getByRole('region', { name: 'Run controls' }).getByTestId('run-status')).toHaveText(
    'succeeded',
    { timeout: 60_000 },
  );
  await page.goto(`/${ORG}/compare?runs=${id},${second.id}`);
  await expect(page.getByText('tps').first()).toBeVisible();
  await expect(page.locator('body')).toContainText(second.id.slice(-8));
});

test('sysbench oltp_read_only (pgsql, prepare step) and hey against /api/health', async ({
  page,
  request,
}) => {
  test.setTimeout(150_000);
  await createWorkload(request, {
    name: 'e2e-sysbench-ro',
    tool: 'sysbench',
    params: { test: 'oltp_read_only', threads: 2, tables: 1, tableSize: 1000 },
    target: pgUrl,
    durationS: 5,
  });
  await createWorkload(request, {
    name: 'e2e-hey-health',
    tool: 'hey',
    params: { concurrency: 2 },
    target: `${BASE_URL}/api/health`,
    durationS: 5,
  });
  await signInPatiently(page);
  for (const [w, metric] of [
    ['e2e-sysbench-ro', 'tps'],
    ['e2e-hey-health', 'rps'],
  ] as const) {
    const { id } = await runFromUi(page, w);
    await expect(page.getByRole('region', { name: 'Run controls' }).getByTestId('run-status')).toHaveText(
      'succeeded',
      { timeout: 60_000 },
    );
    await expect(page.getByRole('table', { name: 'Summary' })).toContainText(metric, { timeout: 10_000 });
    expect((await progress(request, id)).status).toBe('succeeded');
  }
});

test('hostile parameters are refused by the API (422/400), never reach an agent', async ({ request }) => {
  const hostile = ['--foo', '; rm -rf /', '$(id)', 'a\nb', '-c 1 --file=/etc/passwd', '`id`'];
  for (const v of hostile) {
    for (const body of [
      { name: `h-${Math.random()}`, tool: 'pgbench', params: { clients: v }, target: pgUrl },
      { name: `h-${Math.random()}`, tool: 'pgbench', params: { builtin: v }, target: pgUrl },
      { name: `h-${Math.random()}`, tool: 'pgbench', params: {}, target: v },
      { name: `h-${Math.random()}`, tool: 'hey', params: { method: v }, target: `${BASE_URL}/api/health` },
      { name: `h-${Math.random()}`, tool: 'pgbench', params: { [v]: 1 }, target: pgUrl },
    ]) {
      const r = await api<unknown>(request, 'POST', '/workloads', body);
      expect([400, 422], `${JSON.stringify(body)} → ${r.status}`).toContain(r.status);
    }
  }
});

test('health gate: 409 with the reason on an unhealthy cluster; force queues a labelled run', async ({
  request,
}) => {
  const c = await api<{ id: string }>(request, 'POST', '/clusters', { name: 'trigger-unhealthy' });
  expect(c.status).toBe(200);
  const now = Date.now();
  const node = (id: number, liveness: string) => ({
    kind: 'node_status', ts: now, node_id: id, address: `n${id}:26257`, liveness, is_live: liveness === 'LIVE',
    is_available: liveness === 'LIVE', replicas: 10, replicas_leaders: 3, replicas_leaseholders: 3, ranges: 10,
    ranges_unavailable: id === 2 ? 4 : 0, ranges_underreplicated: 0, live_bytes: 1, key_bytes: 1, value_bytes: 1,
    intent_bytes: 0, system_bytes: 0, capacity: 100, capacity_available: 50, capacity_used: 50,
  }); // prettier-ignore
  const ing = await api<unknown>(request, 'POST', '/ingest', {
    batchId: `gate-${now}`,
    cluster: 'trigger-unhealthy',
    samples: [node(1, 'LIVE'), node(2, 'DEAD')],
  });
  expect(ing.status).toBe(202);
  const refused = await api<{ message: string }>(request, 'POST', '/workloads/e2e-hey-health/runs', {
    cluster: 'trigger-unhealthy',
  });
  expect(refused.status).toBe(409);
  expect(refused.body.message).toContain('node 2 is DEAD');
  expect(refused.body.message).toContain('4 range(s) unavailable');
  const forced = await api<{ id: string; forced: boolean; status: string }>(
    request,
    'POST',
    '/workloads/e2e-hey-health/runs',
    { cluster: 'trigger-unhealthy', force: true },
  );
  expect(forced.status).toBe(200);
  expect(forced.body).toMatchObject({ forced: true, status: 'queued' });
  const run = await api<{ labels: Record<string, string> }>(request, 'GET', `/runs/${forced.body.id}`);
  expect(run.body.labels.forced).toBe('true');
  // No agent serves that cluster: cancel ends the queued run at once.
  const cancelled = await api<{ status: string }>(request, 'POST', `/runs/${forced.body.id}/cancel`, {});
  expect(cancelled.body.status).toBe('cancelled');
});

test('cancel from the run page stops the tool; the run ends cancelled', async ({ page, request }) => {
  test.setTimeout(90_000);
  await createWorkload(request, {
    name: 'e2e-pgbench-long',
    tool: 'pgbench',
    params: { clients: 1, builtin: 'select-only' },
    target: pgUrl,
    durationS: 120,
  });
  await signInPatiently(page);
  const { id } = await runFromUi(page, 'e2e-pgbench-long');
  await expect(page.getByTestId('sample-count')).not.toHaveText(/^0 samples$/, { timeout: 30_000 });
  page.once('dialog', (d) => void d.accept());
  const t0 = Date.now();
  await page.getByRole('button', { name: 'Cancel run' }).click();
  await expect(page.getByRole('region', { name: 'Run controls' }).getByTestId('run-status')).toHaveText(
    'cancelled',
    { timeout: 30_000 },
  );
  console.log(`[trigger] cancel pressed → run cancelled: ${Date.now() - t0} ms`);
  expect((await progress(request, id)).status).toBe('cancelled');
});

test('kill -9 of the agent mid-run: the lease expires and the run is failed, not re-run', async ({
  request,
}) => {
  test.setTimeout(90_000);
  const start = await api<{ id: string }>(request, 'POST', '/workloads/e2e-pgbench-long/runs', {
    cluster: CLUSTER,
  });
  expect(start.status).toBe(200);
  const id = start.body.id;
  await expect
    .poll(async () => (await progress(request, id)).samples, { timeout: 30_000 })
    .toBeGreaterThan(0);
  // The tool is the agent's child; it is orphaned by kill -9 of the agent: end it too, by its pid.
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(agent!.pid)], { encoding: 'utf8' })
    .split('\n')
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
  agent!.kill('SIGKILL');
  const killedAt = Date.now();
  await expect
    .poll(async () => (await progress(request, id)).status, { timeout: 30_000, intervals: [200] })
    .toBe('failed');
  const recoveryMs = Date.now() - killedAt;
  for (const pid of children) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  console.log(
    `[trigger] kill -9 of the agent → run failed by lease expiry: ${recoveryMs} ms (lease ${LEASE_S} s)`,
  );
  expect((await progress(request, id)).error).toContain('lease expired');
  expect(recoveryMs).toBeLessThan((LEASE_S + 5) * 1000);
  // A restarted agent does not pick the failed run up again.
  agent = startAgent();
  await new Promise((r) => setTimeout(r, 4000));
  expect((await progress(request, id)).status).toBe('failed');
  expect(agentLog).not.toContain(`"run":"${id}"`);
});
