/**
 * Issue 11 §2: a workload's database password is sealed at rest and redacted on every path: REST, tRPC,
 * exports, pages, the audit log and the Run/Workload rows in PostgreSQL (read with psql).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { createTokenVia, signIn } from '../../fixtures/auth';
import { launch, WEB_DIR } from '../../fixtures/launch';
import { BASE_URL, DATA_DIR } from '../../playwright.config';
import { psql as psqlAt } from '../../fixtures/psql';

const ORG = 'demo';
const CLUSTER = 'sec-secrets';
const PASSWORD = 'Sup3r-S3cret-e2e-pw';
const TARGET = `postgresql://bench:${PASSWORD}@127.0.0.1:5432/bench`;

let token = '';

async function api(request: APIRequestContext, method: string, p: string, data?: unknown) {
  const res = await request.fetch(`${BASE_URL}${p}`, {
    method,
    headers: { authorization: `Bearer ${token}` },
    data,
  });
  return { status: res.status(), text: await res.text() };
}

/** Rows of a query against the app's embedded PostgreSQL, as text. */
const psql = (sql: string) => psqlAt(DATA_DIR, sql);

test.describe.configure({ mode: 'serial' });

test('a workload password never comes back: REST, tRPC, exports, pages, audit log, database rows', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page);
  token = await createTokenVia(page.request, ORG, {
    name: 'e2e-secrets',
    scopes: ['runs:write', 'read', 'admin'],
  });
  const request = page.request;
  expect([200, 409]).toContain((await api(request, 'POST', '/api/v1/clusters', { name: CLUSTER })).status);

  const created = await api(request, 'POST', '/api/v1/workloads', {
    name: 'sec-pgbench',
    tool: 'pgbench',
    params: { clients: 1 },
    target: TARGET,
    durationS: 5,
  });
  expect(created.status, created.text).toBe(200);
  const id = JSON.parse(created.text).id as string;
  expect(JSON.parse(created.text).target).toBe('postgresql://bench:***@127.0.0.1:5432/bench');

  const patched = await api(request, 'PATCH', `/api/v1/workloads/${id}`, { description: 'edited' });
  expect(patched.status, patched.text).toBe(200);
  const started = await api(request, 'POST', `/api/v1/workloads/${id}/runs`, { cluster: CLUSTER });
  expect(started.status, started.text).toBe(200);
  const runId = JSON.parse(started.text).id as string;

  const bodies: [string, string][] = [];
  for (const p of [
    '/api/v1/workloads',
    `/api/v1/workloads/${id}`,
    '/api/v1/workloads/sec-pgbench',
    `/api/v1/runs/${runId}`,
    `/api/v1/runs/${runId}/progress`,
    '/api/v1/runs?workload=sec-pgbench',
    '/api/v1/export/runs?format=csv',
    '/api/v1/export/runs?format=json',
  ]) {
    const r = await api(request, 'GET', p);
    expect(r.status, `${p}: ${r.text}`).toBe(200);
    bodies.push([p, r.text]);
  }
  const trpc = await request.get(`/api/trpc/workloads.list`, { headers: { 'x-org': ORG } });
  expect(trpc.status()).toBe(200);
  bodies.push(['trpc workloads.list', await trpc.text()]);
  for (const url of [`/${ORG}/workloads`, `/${ORG}/workloads/${id}`, `/${ORG}/runs/${runId}`]) {
    await page.goto(url);
    bodies.push([url, await page.content()]);
  }
  for (const [where, body] of [...bodies, ['create', created.text], ['patch', patched.text]])
    expect(body, where).not.toContain(PASSWORD);
  expect(bodies.find(([p]) => p === `/api/v1/workloads/${id}`)![1]).toContain('bench:***@127.0.0.1');

  // At rest: the Workload row holds only the redacted target and a sealed copy; Run and audit rows neither.
  const row = psql(`SELECT row_to_json(w)::text FROM "Workload" w WHERE id = '${id}'`);
  expect(row).toContain('"targetSecret":"v1.');
  for (const sql of [
    `SELECT row_to_json(w)::text FROM "Workload" w`,
    `SELECT row_to_json(r)::text FROM "Run" r`,
    `SELECT row_to_json(a)::text FROM "AuditLog" a`,
  ])
    expect(psql(sql), sql).not.toContain(PASSWORD);

  expect((await api(request, 'POST', `/api/v1/runs/${runId}/cancel`, {})).status).toBe(200);
});

test('without SECRETS_KEY a production start refuses, with one line naming the variable', async () => {
  const bare = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SECRETS_KEY')));
  // The launcher with an external database (nothing embedded to generate a key for).
  const secret = { BETTER_AUTH_SECRET: 'e2e-secrets-spec-0123456789abcdef' };
  const l = launch(
    { ...bare, ...secret, DATABASE_URL: 'postgresql://u:p@127.0.0.1:1/x' } as Record<string, string>,
    {
      port: 3194,
    },
  );
  expect(await l.exited).not.toBe(0);
  expect(l.output()).toMatch(/^clusterscope: SECRETS_KEY is required with DATABASE_URL\/CLICKHOUSE_URL/m);
  expect(l.output().trim().split('\n')).toHaveLength(1);
  // The built server itself under NODE_ENV=production.
  const server = spawn(process.execPath, [path.join(WEB_DIR, 'build/index.js')], {
    cwd: WEB_DIR,
    env: {
      ...bare,
      ...secret,
      NODE_ENV: 'production',
      PORT: '3195',
      DATABASE_URL: 'postgresql://u:p@127.0.0.1:1/x',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  server.stdout!.on('data', (d) => (out += d));
  server.stderr!.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((r) => server.on('exit', (c) => r(c)));
  expect(code).not.toBe(0);
  expect(out).toMatch(/^clusterscope: start-up failed: SECRETS_KEY is required in production/m);
});
