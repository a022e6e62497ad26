/** GET /runs/{id}/report on real stores: the verdict, the metric table, the links, and "no baseline" said once. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TDb } from '@clusterscope/db';
import { type TDeps } from '@clusterscope/services/core';
import { createToken } from '@clusterscope/services/tenancy';
import { openTestDeps } from './test-deps';
import { appRouter } from './root';
import { createCallerFactory } from './trpc';

let db: TDb;
let deps: TDeps;
let close: (() => Promise<void>) | undefined;
const factory = createCallerFactory(appRouter);
let api: ReturnType<typeof factory>;

beforeAll(async () => {
  ({ db, deps, close } = await openTestDeps());
  deps.origin = 'https://cs.example.com';
  const orgId = (await db.organization.create({ data: { id: randomUUID(), name: 'O', slug: 'acme' } })).id;
  const { token } = await createToken(deps, orgId, { name: 'ci', scopes: ['admin'] });
  api = factory({ deps, userId: null, bearer: token, orgSlug: null });
}, 120_000);

afterAll(() => close?.());

/** A finished pgbench run on `branch` with 30 one-second samples around `tps`. */
async function makeRun(cluster: string, tps: number, t0: number, branch?: string, workload = 'tpcb') {
  const run = await api.runs.create({
    cluster,
    workload,
    tool: 'pgbench',
    startedAt: new Date(t0).toISOString(),
    ...(branch ? { git: { branch } } : {}),
  });
  const samples = Array.from({ length: 30 }, (_, i) => ({
    ts: t0 + i * 1000,
    elapsed_s: i + 1,
    values: { tps: tps + ((i * 7) % 5) - 2, lat_avg_ms: 1000 / tps },
  }));
  await api.runs.addSamples({ id: run.id, samples });
  await api.runs.finish({ id: run.id, status: 'succeeded', exitCode: 0 });
  return run.id;
}

it('a run 20% slower than main is a regression: table row, links, branch kept without repo/sha', async () => {
  const c = await api.clusters.create({ name: 'ci-east' });
  const t0 = Date.now() - 3_600_000;
  for (let k = 0; k < 3; k++) await makeRun(c.id, 1000, t0 + k * 60_000, 'main');
  const id = await makeRun(c.id, 800, t0 + 10 * 60_000, 'main');
  const r = await api.compare.report({ id, format: 'json' });
  expect(r).toMatchObject({
    verdict: 'regression',
    verdict_words: 'regression',
    regression: true,
    branch: 'main',
  });
  expect(r.regressions).toContain('tps');
  expect(r.baseline.name).toBe('main (last 3 runs)');
  expect(r.run_url).toBe(`https://cs.example.com/acme/runs/${id}`);
  expect(r.compare_url).toBe(`https://cs.example.com/acme/compare?runs=${id}&baseline=main`);
  const tps = r.metrics.find((m) => m.metric === 'tps')!;
  expect(tps).toMatchObject({ verdict: 'regression', label: 'Transactions/s' });
  expect(tps.test).toMatch(/^(Welch t|bootstrap), (strong|moderate|weak) evidence$/);
  expect(r.markdown).toMatch(/^### 🔴 Clusterscope: ci-east\/tpcb — regression/);
  expect(r.markdown).toMatch(/\| Transactions\/s \(`tps`\) \| 1,000 tx\/s \| 800\.0 tx\/s \| -20\.0% \|/);
  expect(r.markdown).toContain(`[Run ${id.slice(-8)}](${r.run_url})`);
  expect(r.text).toContain(`run:     ${r.run_url}`);
  expect(r.text).toContain(`compare: ${r.compare_url}`);
});

it('a run without a branch and no earlier runs says why there is no baseline and what to pass', async () => {
  const c = await api.clusters.create({ name: 'solo' });
  const id = await makeRun(c.id, 500, Date.now() - 120_000, undefined, 'solo-bench');
  const r = await api.compare.report({ id, format: 'markdown' });
  expect(r.verdict).toBe('no_baseline');
  expect(r.compare_url).toBeNull();
  expect(r.baseline_note).toMatch(/^No baseline: this run has no branch.*Pass `--branch`/);
  expect(r.warnings.join()).toMatch(/this run has no branch/);
  expect(r.markdown.match(/No baseline/g)).toHaveLength(1);
});
