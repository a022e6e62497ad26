import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { cliToken as createCliToken } from '../../fixtures/launch';

/** E2E_DATA_DIR lets a run use its own app instance (the default e2e/.data is shared). */

/**
 * Throws thousands of malformed payloads at /api/v1/ingest (and random text at /runs/{id}/output):
 * every answer must be a 2xx/4xx with a JSON body, never a 5xx, and the app stays healthy.
 */

const uid = () => randomBytes(4).toString('hex');

const cliToken = (scopes: string) => createCliToken(scopes, 'e2e-fuzz');

const valid = () => ({
  kind: 'node_status', ts: Date.now(), node_id: 1, address: 'n1:26257', liveness: 'LIVE', is_live: true,
  is_available: true, replicas: 10, replicas_leaders: 3, replicas_leaseholders: 3, ranges: 10,
  ranges_unavailable: 0, ranges_underreplicated: 0, live_bytes: 1, key_bytes: 1, value_bytes: 1, intent_bytes: 0,
  system_bytes: 0, capacity: 100, capacity_available: 50, capacity_used: 50,
}) as Record<string, unknown>; // prettier-ignore

const KINDS = ['node_status', 'cgroup_usage', 'host_metrics', 'bench_sample', 'heartbeat', 'x', ''];

/** A sample with random fields replaced, removed or added (values of any JSON type). */
const mutatedSample = fc
  .tuple(
    fc.constantFrom(...KINDS),
    fc.dictionary(
      fc.constantFrom(...Object.keys(valid()), 'io', 'psi', 'values', 'run_id', 'cgroup'),
      fc.jsonValue(),
      {
        maxKeys: 4,
      },
    ),
    fc.array(fc.constantFrom(...Object.keys(valid())), { maxLength: 3 }),
  )
  .map(([kind, patch, drop]) => {
    const s: Record<string, unknown> = { ...valid(), kind, ...patch };
    for (const k of drop) delete s[k];
    return s;
  });

/** Body variants: mutated batches, arbitrary JSON, raw bytes, deep nesting, huge numbers. */
const payload = fc.oneof(
  fc
    .record({
      batchId: fc.oneof(fc.string({ minLength: 8, maxLength: 20 }), fc.jsonValue()),
      cluster: fc.oneof(fc.constant('fuzz'), fc.string(), fc.jsonValue()),
      samples: fc.oneof(fc.array(mutatedSample, { maxLength: 6 }), fc.jsonValue()),
    })
    .map((b) => ({ body: JSON.stringify(b), gzip: false })),
  fc.jsonValue().map((v) => ({ body: JSON.stringify(v) ?? 'null', gzip: false })),
  fc.uint8Array({ maxLength: 200 }).map((b) => ({ body: Buffer.from(b), gzip: false })),
  fc.uint8Array({ maxLength: 200 }).map((b) => ({ body: Buffer.from(b), gzip: true })),
  fc.string({ maxLength: 300 }).map((s) => ({ body: gzipSync(s), gzip: true })),
  fc.integer({ min: 1, max: 5000 }).map((n) => ({ body: '['.repeat(n) + ']'.repeat(n), gzip: false })),
  fc.constantFrom('1e400', '-0', '9007199254740993', '"\\ud800"', 'NaN').map((n) => ({
    body: `{"batchId":"abcdefgh","cluster":"fuzz","samples":[{"kind":"node_status","ts":${n}}]}`,
    gzip: false,
  })),
);

test('no malformed ingest payload gets a 5xx; health stays ok', async ({ request }) => {
  test.setTimeout(300_000);
  const admin = cliToken('admin');
  await request.post('/api/v1/clusters', {
    headers: { authorization: `Bearer ${admin}` },
    data: { name: 'fuzz' },
  });
  // Several tokens spread the load under the per-token rate limit (a 429 is fine but tests nothing).
  const tokens = Array.from({ length: 8 }, () => cliToken('ingest'));
  let n = 0;
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(payload, async ({ body, gzip }) => {
      const token = tokens[n++ % tokens.length];
      const res = await request.post('/api/v1/ingest', {
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...(gzip ? { 'content-encoding': 'gzip' } : {}),
        },
        data: body,
      });
      statuses.set(res.status(), (statuses.get(res.status()) ?? 0) + 1);
      expect(res.status(), await res.text()).toBeLessThan(500);
      if (res.status() !== 202) expect(typeof (await res.json()).error).toBe('string');
    }),
    { numRuns: 2000 },
  );
  expect(statuses.get(400) ?? 0).toBeGreaterThan(1000);
  const health = await request.get('/api/health');
  expect(health.status()).toBe(200);
});

async function newRun(request: APIRequestContext, token: string): Promise<string> {
  const res = await request.post('/api/v1/runs', {
    headers: { authorization: `Bearer ${token}` },
    data: { cluster: 'fuzz', workload: `fuzz-${uid()}`, tool: 'sysbench' },
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).id;
}

test('random tool output never gets a 5xx from /runs/{id}/output', async ({ request }) => {
  test.setTimeout(180_000);
  const ci = cliToken('runs:write');
  const id = await newRun(request, ci);
  const line = fc.oneof(
    fc.string({ maxLength: 80 }),
    fc.constantFrom(
      '[ 1s ] thds: 4 tps: 3154.62 qps: 50481.03 (r/w/o: 44170.79/0.00/6310.24) lat (ms,95%): 1.52 err/s: 0.00 reconn/s: 0.00',
      'SQL statistics:',
      'progress: 1.0 s, 1234.5 tps, lat 1.6 ms stddev 0.4, 0 failed',
      'Requests/sec:  1234.56',
      '_elapsed___errors__ops/sec(inst)___ops/sec(cum)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)',
      '    1.0s        0         1234.5         1234.5      1.2      3.4      5.6     12.6 read',
      'Summary:\n  Total:\t1.0 secs',
      '{"fio version" : "fio-3.33", "jobs": [',
    ),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.array(line, { maxLength: 30 }),
      fc.constantFrom(undefined, 'sysbench', 'pgbench', 'fio', 'wrk', 'hey', 'cockroach-workload'),
      async (lines, tool) => {
        const res = await request.post(`/api/v1/runs/${id}/output`, {
          headers: { authorization: `Bearer ${ci}` },
          data: { output: lines.join('\n'), tool },
        });
        expect(res.status(), await res.text()).toBeLessThan(500);
      },
    ),
    { numRuns: 300 },
  );
  expect((await request.get('/api/health')).status()).toBe(200);
});
