/**
 * One number per metric: a pgbench run posted through REST as CI does is read back through every page's
 * procedure (runs list, run page, compare page, workload history) and the REST API (run, compare), and each
 * shows the same stored value for each metric, rounded by the one formatter. The pgbench outputs' summary
 * tps differs from the mean of their progress lines (as real pgbench's does), so a page that recomputes a
 * summary from the samples would show another number.
 */
import { randomUUID } from 'node:crypto';
import { createOpenApiFetchHandler } from 'trpc-to-openapi';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TDb } from '@clusterscope/db';
import { type TDeps } from '@clusterscope/services/core';
import { createToken } from '@clusterscope/services/tenancy';
import { formatValue, type TMetric, type TMetricVerdict } from '@clusterscope/schema';
import { openTestDeps } from './test-deps';
import { appRouter } from './root';
import { createCallerFactory } from './trpc';

let db: TDb;
let deps: TDeps;
let token: string;
let close: (() => Promise<void>) | undefined;
const factory = createCallerFactory(appRouter);
let api: ReturnType<typeof factory>;

beforeAll(async () => {
  ({ db, deps, close } = await openTestDeps());
  const org = await db.organization.create({ data: { id: randomUUID(), name: 'N', slug: 'org-n' } });
  await db.cluster.create({ data: { organizationId: org.id, name: 'one-number' } });
  token = (await createToken(deps, org.id, { name: 'ci', scopes: ['admin'] })).token;
  api = factory({ deps, userId: null, bearer: token, orgSlug: null });
}, 120_000);

afterAll(() => close?.());

async function rest<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await createOpenApiFetchHandler({
    endpoint: '/api/v1',
    req: new Request(`http://127.0.0.1/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    router: appRouter,
    createContext: () => ({ deps, userId: null, bearer: token, orgSlug: null }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** pgbench -P 1 output: 12 progress lines around `level` tps, a summary tps 0.7% above their mean. */
function pgbenchOutput(level: number): string {
  const lines = Array.from({ length: 12 }, (_, i) => {
    const tps = level * (1 + ((i % 3) - 1) * 0.01);
    return `progress: ${i + 1}.0 s, ${tps.toFixed(1)} tps, lat ${(2000 / tps).toFixed(3)} ms stddev 0.100, 0 failed`;
  });
  return [
    'pgbench (15.18 (Debian 15.18-0+deb12u1), server 18.4)',
    'starting vacuum...end.',
    ...lines,
    'transaction type: <builtin: select only>',
    'scaling factor: 1',
    'query mode: simple',
    'number of clients: 2',
    'number of threads: 2',
    'maximum number of tries: 1',
    'duration: 12 s',
    `number of transactions actually processed: ${Math.round(level * 12)}`,
    'number of failed transactions: 0 (0.000%)',
    `latency average = ${(2000 / level).toFixed(3)} ms`,
    'latency stddev = 0.100 ms',
    'initial connection time = 3.512 ms',
    `tps = ${(level * 1.007).toFixed(6)} (without initial connection time)`,
    '',
  ].join('\n');
}

async function postRun(level: number, startedAt: Date): Promise<string> {
  const { id } = await rest<{ id: string }>('POST', '/runs', {
    cluster: 'one-number',
    workload: 'select-only',
    tool: 'pgbench',
    git: { repo: 'https://git.example/r', branch: 'main', sha: randomUUID().replaceAll('-', '') },
    startedAt: startedAt.toISOString(),
  });
  await rest('POST', `/runs/${id}/output`, { output: pgbenchOutput(level), tool: 'pgbench' });
  await rest('POST', `/runs/${id}/finish`, { status: 'succeeded', exitCode: 0 });
  return id;
}

it('every page and the REST API show the same stored value for each metric of one run', async () => {
  const t0 = Date.now() - 3_600_000;
  const base = [];
  for (let i = 0; i < 3; i++) base.push(await postRun(1250 + i * 3, new Date(t0 + i * 60_000)));
  const id = await postRun(1100, new Date(t0 + 5 * 60_000));

  // The stored values: REST GET /runs/{id}.
  const stored = (await rest<{ summary: TMetric[] }>('GET', `/runs/${id}`)).summary;
  const value = new Map(stored.map((m) => [m.name, m.value]));
  // The tool's own summary tps, not the mean of its progress lines.
  expect(value.get('tps')).toBeCloseTo(1100 * 1.007, 3);
  // lat_ms is only in the progress lines: its one value was computed at ingest and stored.
  expect(value.has('lat_ms') || value.has('lat_avg_ms')).toBe(true);

  const seen: Record<string, Record<string, number>> = {};
  const see = (where: string, metric: string, v: number | null | undefined) => {
    if (v === null || v === undefined) return;
    (seen[metric] ??= {})[where] = v;
  };

  const page = await api.compare.runPage({ id });
  for (const m of page.run.summary) see('run page summary', m.name, m.value);
  for (const v of page.comparison.verdicts) see('run page verdict table', v.metric, v.value);

  const restCmp = await rest<{ verdicts: TMetricVerdict[] }>('GET', `/runs/${id}/compare`);
  for (const v of restCmp.verdicts) see('REST compare', v.metric, v.value);

  const view = await api.compare.view({ runs: [base[2], id] });
  for (const m of view.metrics)
    for (const d of m.deltas) if (d.run_id === id) see('compare page', m.metric, d.value);

  const list = await api.pages.runs({ workload: 'select-only' });
  const row = list.runs.find((r) => r.id === id)!;
  for (const k of row.key) see('runs list', k.metric, k.value);

  const history = await api.compare.history({ workloadId: page.run.workloadId! });
  for (const m of history.metrics) see('workload history Latest', m.metric, m.points.at(-1)?.value);
  expect(history.metrics.find((m) => m.metric === 'tps')?.points.at(-1)?.runId).toBe(id);

  expect(Object.keys(seen['tps'] ?? {}).sort()).toEqual(
    [
      'REST compare',
      'compare page',
      'run page summary',
      'run page verdict table',
      'runs list',
      'workload history Latest',
    ].sort(),
  );
  for (const [metric, where] of Object.entries(seen)) {
    const want = value.get(metric);
    expect(want, `${metric} is stored`).toBeDefined();
    for (const [w, v] of Object.entries(where)) {
      expect(v, `${metric} on ${w}`).toBe(want);
      expect(formatValue(v)).toBe(formatValue(want));
    }
  }
  // The baseline value of a verdict is the mean of the baseline runs' stored values.
  const baseTps = await Promise.all(
    base.map(
      async (b) =>
        (await rest<{ summary: TMetric[] }>('GET', `/runs/${b}`)).summary.find((m) => m.name === 'tps')!
          .value,
    ),
  );
  const tpsVerdict = page.comparison.verdicts.find((v) => v.metric === 'tps')!;
  expect(tpsVerdict.baseline).toBeCloseTo(baseTps.reduce((a, b) => a + b, 0) / 3, 9);
  // tps has interval samples: judged by its test, a 12% drop with strong evidence.
  expect(tpsVerdict).toMatchObject({ kind: 'rate', judged: true, verdict: 'regression' });
  expect(['welch', 'bootstrap']).toContain(tpsVerdict.test);
  // Counts and set-up times are shown, not judged.
  for (const m of ['transactions', 'conn_time_ms'])
    expect(page.comparison.verdicts.find((v) => v.metric === m)).toMatchObject({
      judged: false,
      evidence: 'not_judged',
    });
  expect(row.verdictEvidence).toMatch(/tps: (Welch t|bootstrap), \w+ evidence/);
}, 120_000);
