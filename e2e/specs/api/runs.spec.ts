import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { cliToken as createCliToken } from '../../fixtures/launch';

/** E2E_DATA_DIR lets a run use its own app instance (the default e2e/.data is shared). */

const uid = () => randomBytes(4).toString('hex');
const auth = (t: string) => ({ authorization: `Bearer ${t}` });
const fixture = (name: string) =>
  readFileSync(new URL(`../../../packages/bench/fixtures/${name}`, import.meta.url), 'utf8');

const cliToken = (scopes: string) => createCliToken(scopes, 'e2e-runs');

let ci: string;
let admin: string;
let clusterName: string;

async function createRun(request: APIRequestContext, data: Record<string, unknown>): Promise<string> {
  const res = await request.post('/api/v1/runs', {
    headers: auth(ci),
    data: { cluster: clusterName, ...data },
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).id;
}

test.beforeAll(async ({ request }) => {
  admin = cliToken('admin');
  ci = cliToken('runs:write');
  clusterName = `runs-${uid()}`;
  const res = await request.post('/api/v1/clusters', { headers: auth(admin), data: { name: clusterName } });
  expect(res.status(), await res.text()).toBe(200);
});

test('CI flow: create → live samples → output → finish → get, with every metric unit + direction', async ({
  request,
}) => {
  const workload = `pgbench-tpcb-${uid()}`;
  const id = await createRun(request, {
    workload,
    tool: 'pgbench',
    params: { clients: 2 },
    git: { repo: 'acme/db', branch: 'main', sha: 'abc123' },
    labels: { runner: 'e2e' },
  });

  const samples = await request.post(`/api/v1/runs/${id}/samples`, {
    headers: auth(ci),
    data: {
      batchId: `live-${uid()}`,
      samples: [
        { elapsed_s: 1, values: { tps: 500, lat_avg_ms: 4 } },
        { elapsed_s: 2, values: { tps: 520, lat_avg_ms: 3.9 } },
      ],
    },
  });
  expect(samples.status(), await samples.text()).toBe(200);
  expect(await samples.json()).toEqual({ accepted: 2, duplicate: false });

  const out = await request.post(`/api/v1/runs/${id}/output`, {
    headers: auth(ci),
    data: { output: fixture('pgbench_tpcb.txt') },
  });
  expect(out.status(), await out.text()).toBe(200);
  const parsed = await out.json();
  expect(parsed.tool).toBe('pgbench');
  expect(parsed.incomplete).toBe(false);
  expect(parsed.samples).toBe(0); // live samples were posted: the output's intervals are not stored twice
  expect(parsed.summary.find((m: { name: string }) => m.name === 'tps')).toMatchObject({
    unit: 'tx/s',
    direction: 'higher',
  });

  const fin = await request.post(`/api/v1/runs/${id}/finish`, {
    headers: auth(ci),
    data: { status: 'succeeded', exitCode: 0 },
  });
  expect(fin.status(), await fin.text()).toBe(200);
  expect((await fin.json()).status).toBe('succeeded');
  const again = await request.post(`/api/v1/runs/${id}/finish`, {
    headers: auth(ci),
    data: { status: 'failed' },
  });
  expect(again.status()).toBe(409);

  const got = await request.get(`/api/v1/runs/${id}`, { headers: auth(ci) });
  expect(got.status()).toBe(200);
  const run = await got.json();
  expect(run).toMatchObject({
    id,
    status: 'succeeded',
    tool: 'pgbench',
    workloadName: workload,
    clusterName,
    git: { repo: 'acme/db', branch: 'main', sha: 'abc123' },
    labels: { runner: 'e2e' },
    hasRawOutput: true,
  });
  expect(run.finishedAt).toBeTruthy();
  expect(run.summary.length).toBeGreaterThan(3);
  for (const m of run.summary) {
    expect(typeof m.unit).toBe('string');
    expect(['higher', 'lower']).toContain(m.direction);
  }

  const list = await request.get(`/api/v1/runs?workload=${workload}&branch=main&label=runner=e2e`, {
    headers: auth(ci),
  });
  expect(list.status(), await list.text()).toBe(200);
  expect((await list.json()).items.map((r: { id: string }) => r.id)).toEqual([id]);
});

test('every fixture output parses through the API and stores interval samples', async ({ request }) => {
  const cases: [string, string][] = [
    ['sysbench_oltp_read_only_pgsql.txt', 'sysbench'],
    ['cockroach_workload_tpcc.txt', 'cockroach-workload'],
    ['fio_randrw.json', 'fio'],
    ['wrk_latency.txt', 'wrk'],
    ['hey.txt', 'hey'],
  ];
  for (const [file, tool] of cases) {
    const id = await createRun(request, { workload: `wl-${tool}-${uid()}`, tool });
    const res = await request.post(`/api/v1/runs/${id}/output`, {
      headers: auth(ci),
      data: { output: fixture(file) },
    });
    expect(res.status(), `${file}: ${await res.text()}`).toBe(200);
    const body = await res.json();
    expect(body.tool).toBe(tool);
    expect(body.summary.length, file).toBeGreaterThan(0);
    const got = await (await request.get(`/api/v1/runs/${id}`, { headers: auth(ci) })).json();
    expect(got.summary.length).toBe(body.summary.length);
  }
});

test('422 with what was recognised for garbage or empty output; incomplete warning on truncated output', async ({
  request,
}) => {
  const id = await createRun(request, { workload: `detect-${uid()}`, tool: 'hey' });
  const garbage = await request.post(`/api/v1/runs/${id}/output`, {
    headers: auth(ci),
    data: { output: 'lorem ipsum\ndolor sit amet\n', tool: undefined },
  });
  expect(garbage.status()).toBe(422);
  expect((await garbage.json()).message).toMatch(/recognised/);
  const empty = await request.post(`/api/v1/runs/${id}/output`, { headers: auth(ci), data: { output: '' } });
  expect(empty.status()).toBe(422);

  const t = await createRun(request, { workload: `trunc-${uid()}`, tool: 'sysbench' });
  const res = await request.post(`/api/v1/runs/${t}/output`, {
    headers: auth(ci),
    data: { output: fixture('truncated_sysbench_oltp_read_only.txt') },
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = await res.json();
  expect(body.incomplete).toBe(true);
  expect(body.warnings.some((w: string) => w.startsWith('incomplete'))).toBe(true);
  const got = await (await request.get(`/api/v1/runs/${t}`, { headers: auth(ci) })).json();
  expect(got.warnings.some((w: string) => w.startsWith('incomplete'))).toBe(true);
});

test('structured results, auth and validation errors are 4xx', async ({ request }) => {
  const id = await createRun(request, { workload: `res-${uid()}`, tool: 'wrk' });
  const ok = await request.post(`/api/v1/runs/${id}/results`, {
    headers: auth(ci),
    data: {
      metrics: [
        { name: 'rps', value: 1234 },
        { name: 'score', value: 3, unit: 'pts', direction: 'higher' },
      ],
    },
  });
  expect(ok.status(), await ok.text()).toBe(200);
  expect((await ok.json()).summary[0]).toEqual({
    name: 'rps',
    value: 1234,
    unit: 'req/s',
    direction: 'higher',
  });
  const noDir = await request.post(`/api/v1/runs/${id}/results`, {
    headers: auth(ci),
    data: { metrics: [{ name: 'mystery', value: 1 }] },
  });
  expect(noDir.status()).toBe(422);

  const ingestOnly = cliToken('ingest');
  const forbidden = await request.post('/api/v1/runs', {
    headers: auth(ingestOnly),
    data: { cluster: clusterName, workload: 'x', tool: 'wrk' },
  });
  expect(forbidden.status()).toBe(403);
  expect(
    (await request.post('/api/v1/runs', { data: { cluster: clusterName, workload: 'x' } })).status(),
  ).toBe(401);
  const badTool = await request.post('/api/v1/runs', {
    headers: auth(ci),
    data: { cluster: clusterName, workload: 'x', tool: 'nmap' },
  });
  expect(badTool.status()).toBe(400);
  const noTool = await request.post('/api/v1/runs', {
    headers: auth(ci),
    data: { cluster: clusterName, workload: `new-${uid()}` },
  });
  expect(noTool.status()).toBe(422);
  // An unknown cluster id is a 404 (an unknown *name* is created: see ci-friction.spec.ts).
  const unknownCluster = await request.post('/api/v1/runs', {
    headers: auth(ci),
    data: { cluster: 'cnotaclusterid0000000000000', workload: 'x', tool: 'wrk' },
  });
  expect(unknownCluster.status()).toBe(404);
  expect((await request.get('/api/v1/runs/not-a-run', { headers: auth(ci) })).status()).toBe(404);
  const badStatus = await request.post(`/api/v1/runs/${id}/finish`, {
    headers: auth(ci),
    data: { status: 'exploded' },
  });
  expect(badStatus.status()).toBe(400);
  expect((await request.get('/api/v1/runs?from=yesterday', { headers: auth(ci) })).status()).toBe(400);
  expect((await request.get('/api/v1/runs?label=nolabel', { headers: auth(ci) })).status()).toBe(400);
});
