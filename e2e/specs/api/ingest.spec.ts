import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { cliToken } from '../../fixtures/launch';
import { getRunPoints } from './run-points';

const uid = () => randomBytes(4).toString('hex');
const auth = (t: string) => ({ authorization: `Bearer ${t}` });

async function tokenVia(
  request: APIRequestContext,
  admin: string,
  input: { scopes: string[]; clusterId?: string },
): Promise<{ id: string; token: string }> {
  const res = await request.post('/api/trpc/tokens.create', {
    headers: auth(admin),
    data: { name: `e2e-${uid()}`, ...input },
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).result.data;
}

const node = (ts: number, node_id = 1) => ({
  kind: 'node_status', ts, node_id, address: `n${node_id}:26257`, liveness: 'LIVE', is_live: true,
  is_available: true, replicas: 10, replicas_leaders: 3, replicas_leaseholders: 3, ranges: 10,
  ranges_unavailable: 0, ranges_underreplicated: 0, live_bytes: 1, key_bytes: 1, value_bytes: 1, intent_bytes: 0,
  system_bytes: 0, capacity: 100, capacity_available: 50, capacity_used: 50,
}); // prettier-ignore

let admin: string;
let ingest: string;
let cluster: { id: string; name: string };

test.beforeAll(async ({ request }) => {
  admin = cliToken('admin', 'e2e-ingest'); // the admin CLI: the same path CI runners use
  const name = `ingest-${uid()}`;
  const res = await request.post('/api/v1/clusters', { headers: auth(admin), data: { name } });
  expect(res.status(), await res.text()).toBe(200);
  cluster = await res.json();
  ingest = (await tokenVia(request, admin, { scopes: ['ingest'] })).token;
});

test('accepts a batch (202), and a retried batch id once', async ({ request }) => {
  const batch = {
    batchId: `b-${uid()}`,
    cluster: cluster.name,
    samples: [node(Date.now()), node(Date.now(), 2)],
  };
  const r1 = await request.post('/api/v1/ingest', { headers: auth(ingest), data: batch });
  expect(r1.status(), await r1.text()).toBe(202);
  expect(await r1.json()).toEqual({ accepted: 2, duplicate: false });
  const r2 = await request.post('/api/v1/ingest', { headers: auth(ingest), data: batch });
  expect(r2.status()).toBe(202);
  expect(await r2.json()).toEqual({ accepted: 2, duplicate: true });
});

test('accepts gzip bodies and cluster ids', async ({ request }) => {
  const body = gzipSync(
    JSON.stringify({ batchId: `g-${uid()}`, cluster: cluster.id, samples: [node(Date.now())] }),
  );
  const res = await request.post('/api/v1/ingest', {
    headers: { ...auth(ingest), 'content-type': 'application/json', 'content-encoding': 'gzip' },
    data: body,
  });
  expect(res.status(), await res.text()).toBe(202);
  expect((await res.json()).accepted).toBe(1);
});

test('a duplicate batch of bench samples is stored once (read back through the run page)', async ({
  request,
}) => {
  const run = await request.post('/api/v1/runs', {
    headers: auth(admin),
    data: { cluster: cluster.name, workload: `wl-${uid()}`, tool: 'sysbench' },
  });
  expect(run.status(), await run.text()).toBe(200);
  const { id } = await run.json();
  const batch = {
    batchId: `bench-${uid()}`,
    cluster: cluster.name,
    samples: [1, 2, 3].map((s) => ({
      kind: 'bench_sample',
      ts: Date.now() + s * 1000,
      run_id: id,
      elapsed_s: s,
      values: { tps: 100 * s, lat_p95_ms: 2 },
    })),
  };
  for (let i = 0; i < 3; i++) {
    const r = await request.post('/api/v1/ingest', { headers: auth(ingest), data: batch });
    expect(r.status()).toBe(202);
  }
  const points = await getRunPoints(request, auth(admin), id);
  expect(points.map((p) => p.values.tps)).toEqual([100, 200, 300]);
});

test('400 names the JSON path of every invalid item; bad JSON and gzip are 400', async ({ request }) => {
  const samples = [node(Date.now()), { ...node(Date.now()), replicas: -5 }, { kind: 'nope' }];
  const res = await request.post('/api/v1/ingest', {
    headers: auth(ingest),
    data: { batchId: `bad-${uid()}`, cluster: cluster.name, samples },
  });
  expect(res.status()).toBe(400);
  const body = await res.json();
  expect(body.error).toMatch(/invalid ingest batch/);
  expect(body.issues).toEqual(expect.arrayContaining([expect.stringMatching(/^samples\.1\.replicas: /)]));
  expect(body.issues).toEqual(expect.arrayContaining([expect.stringMatching(/^samples\.2\.kind: /)]));

  const many = Array.from({ length: 500 }, () => ({ ...node(Date.now()), ranges: 'x' }));
  const capped = await request.post('/api/v1/ingest', {
    headers: auth(ingest),
    data: { batchId: `bad-${uid()}`, samples: many },
  });
  expect(capped.status()).toBe(400);
  const c = await capped.json();
  expect(c.issues).toHaveLength(100);
  expect(c.issueCount).toBe(500);

  const notJson = await request.post('/api/v1/ingest', { headers: auth(ingest), data: '{"batchId": ' });
  expect(notJson.status()).toBe(400);
  expect((await notJson.json()).error).toMatch(/not valid JSON/);
  const badGz = await request.post('/api/v1/ingest', {
    headers: { ...auth(ingest), 'content-encoding': 'gzip' },
    data: Buffer.from('definitely not gzip'),
  });
  expect(badGz.status()).toBe(400);
  const br = await request.post('/api/v1/ingest', {
    headers: { ...auth(ingest), 'content-encoding': 'br' },
    data: '{}',
  });
  expect(br.status()).toBe(415);
});

test('401 for missing, unknown and revoked tokens; 403 without ingest scope or for another cluster', async ({
  request,
}) => {
  const data = { batchId: `auth-${uid()}`, cluster: cluster.name, samples: [node(Date.now())] };
  const none = await request.post('/api/v1/ingest', { data });
  expect(none.status()).toBe(401);
  expect(none.headers()['www-authenticate']).toBe('Bearer');
  expect((await none.json()).error).toMatch(/Bearer/);
  expect((await request.post('/api/v1/ingest', { headers: auth('cs_nope_nope'), data })).status()).toBe(401);

  const t = await tokenVia(request, admin, { scopes: ['ingest'] });
  expect((await request.post('/api/v1/ingest', { headers: auth(t.token), data })).status()).toBe(202);
  const rev = await request.post('/api/trpc/tokens.revoke', { headers: auth(admin), data: { id: t.id } });
  expect(rev.status(), await rev.text()).toBe(200);
  const revoked = await request.post('/api/v1/ingest', {
    headers: auth(t.token),
    data: { ...data, batchId: `auth-${uid()}` },
  });
  expect(revoked.status()).toBe(401);
  expect((await revoked.json()).error).toMatch(/revoked/);

  const ro = await tokenVia(request, admin, { scopes: ['read', 'runs:write'] });
  const noScope = await request.post('/api/v1/ingest', { headers: auth(ro.token), data });
  expect(noScope.status()).toBe(403);
  expect((await noScope.json()).error).toMatch(/ingest/);

  const other = await request.post('/api/v1/clusters', {
    headers: auth(admin),
    data: { name: `other-${uid()}` },
  });
  const bound = await tokenVia(request, admin, { scopes: ['ingest'], clusterId: (await other.json()).id });
  const mismatch = await request.post('/api/v1/ingest', { headers: auth(bound.token), data });
  expect(mismatch.status()).toBe(403);
  const implicit = await request.post('/api/v1/ingest', {
    headers: auth(bound.token),
    data: { batchId: `auth-${uid()}`, samples: [node(Date.now())] },
  });
  expect(implicit.status(), await implicit.text()).toBe(202);

  const unknown = await request.post('/api/v1/ingest', {
    headers: auth(ingest),
    data: { ...data, cluster: 'no-such-cluster' },
  });
  expect(unknown.status()).toBe(404);
  expect((await unknown.json()).error).toMatch(/no-such-cluster/);
});

test('413 above INGEST_MAX_BYTES, compressed (Content-Length) or decompressed (gzip bomb)', async ({
  request,
}) => {
  const big = Buffer.alloc(11 * 1024 * 1024, 0x20);
  const res = await request.post('/api/v1/ingest', {
    headers: { ...auth(ingest), 'content-type': 'application/json' },
    data: big,
  });
  expect(res.status()).toBe(413);
  expect((await res.json()).error).toMatch(/INGEST_MAX_BYTES/);

  const bomb = gzipSync(Buffer.alloc(40 * 1024 * 1024, 0x20));
  expect(bomb.length).toBeLessThan(100_000);
  const b = await request.post('/api/v1/ingest', {
    headers: { ...auth(ingest), 'content-encoding': 'gzip' },
    data: bomb,
  });
  expect(b.status()).toBe(413);
  expect((await b.json()).error).toMatch(/decompressed/);
  expect((await request.get('/api/health')).status()).toBe(200);
});

test('429 with Retry-After when a token exceeds INGEST_RATE_PER_S', async ({ request }) => {
  const t = await tokenVia(request, admin, { scopes: ['ingest'] });
  const answers = await Promise.all(
    Array.from({ length: 250 }, () => request.post('/api/v1/ingest', { headers: auth(t.token), data: '{}' })),
  );
  const limited = answers.filter((r) => r.status() === 429);
  expect(limited.length).toBeGreaterThan(0);
  expect(Number(limited[0].headers()['retry-after'])).toBeGreaterThanOrEqual(1);
  expect((await limited[0].json()).error).toMatch(/rate limit/);
  expect(answers.every((r) => r.status() === 400 || r.status() === 429)).toBe(true);
  // Another token is not affected.
  expect((await request.post('/api/v1/ingest', { headers: auth(ingest), data: '{}' })).status()).toBe(400);
});

test('heartbeats show the agent with capabilities and outbox evictions', async ({ request }) => {
  const name = `agent-${uid()}`;
  const res = await request.post('/api/v1/ingest', {
    headers: auth(ingest),
    data: {
      batchId: `hb-${uid()}`,
      cluster: cluster.name,
      agent: { name, version: '1.2.3' },
      samples: [
        {
          kind: 'heartbeat',
          ts: Date.now(),
          host: 'db-1',
          version: '1.2.3',
          uptime_s: 60,
          capabilities: ['cockroachdb', 'cgroup'],
          outbox_evictions: 7,
        },
      ],
    },
  });
  expect(res.status(), await res.text()).toBe(202);
  const list = await request.get('/api/trpc/agents.list', { headers: auth(admin) });
  const agent = (await list.json()).result.data.find((a: { name: string }) => a.name === name);
  expect(agent).toMatchObject({ clusterId: cluster.id, version: '1.2.3', outboxEvictions: 7 });
  expect(agent.capabilities).toEqual(['cockroachdb', 'cgroup']);
});

test('the OpenAPI spec documents ingest and the runs API', async ({ request }) => {
  const doc = await (await request.get('/api/v1/openapi.json')).json();
  expect(doc.paths['/ingest'].post.responses).toHaveProperty('202');
  expect(doc.paths['/ingest'].post.requestBody.content['application/json'].schema).toBeTruthy();
  for (const p of ['/runs', '/runs/{id}', '/runs/{id}/samples', '/runs/{id}/output', '/runs/{id}/finish'])
    expect(Object.keys(doc.paths)).toContain(p);
});
