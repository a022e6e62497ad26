import { createRng, drawAr1 } from '@clusterscope/bench';
import { countWorkloadRuns, findOrCreateWorkload } from '@clusterscope/db';
import type { TWriter } from '@clusterscope/tsdb';
import type { TDeps } from '../core/deps';
import type { TCaller } from '../tenancy/caller';
import { addRunResults, addRunSamples, createRun, finishRun } from '../runs/runs';
import { saveThreshold } from '../runs/thresholds';

export const DEMO_WORKLOAD = 'demo-pgbench';
const RUNS = 12;
/** Run index from which throughput drops ~17% (a simulated regression for the history and alerts). */
export const DEMO_REGRESSION_AT = 9;
const CLIENTS = 8;
const SECONDS = 60;

/** Interval tps of simulated run `i`: autocorrelated noise around a mean that drops at the regression. */
export function simulateDemoRun(i: number): { tps: number[]; lat: number[] } {
  const mean = i >= DEMO_REGRESSION_AT ? 1250 : 1500;
  const tps = drawAr1(createRng(1000 + i), SECONDS, mean, mean * 0.04, 0.5).map((v) => Math.max(1, v));
  return { tps, lat: tps.map((t) => (CLIENTS / t) * 1000) };
}

const avg = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/**
 * Seeds a benchmark history for the demo org once (12 nightly pgbench runs on `main` with a regression at run
 * 9, and a 10% threshold), through the same services CI uses, so runs, compare and workload history pages
 * are alive on first start. Returns the number of runs created (0 when already seeded).
 */
export async function seedDemoRuns(
  deps: TDeps,
  writer: TWriter,
  target: { orgId: string; orgSlug: string; clusterId: string },
  now = Date.now(),
): Promise<number> {
  if ((await countWorkloadRuns(deps.db, target.orgId, DEMO_WORKLOAD)) > 0) return 0;
  const caller: TCaller = {
    kind: 'token',
    tokenId: 'demo-seed',
    orgId: target.orgId,
    orgSlug: target.orgSlug,
    scopes: ['admin', 'runs:write'],
    clusterId: null,
  };
  const workload = await findOrCreateWorkload(deps.db, target.orgId, DEMO_WORKLOAD, 'pgbench');
  if (!workload) return 0;
  await saveThreshold(deps, caller, {
    workloadId: workload.id,
    metric: 'tps',
    test: 'percentage',
    limit: 10,
    minSamples: 3,
  });
  for (let i = 0; i < RUNS; i++) {
    const startedAt = now - (RUNS - i) * 86_400_000;
    const { id } = await createRun(deps, caller, {
      cluster: target.clusterId,
      workload: DEMO_WORKLOAD,
      tool: 'pgbench',
      params: { clients: CLIENTS, jobs: 2, builtin: 'tpcb-like', duration_s: SECONDS },
      git: {
        repo: 'github.com/acme/db',
        branch: 'main',
        sha: (0x1a2b3c4 + i * 7919).toString(16).padStart(7, '0'),
      },
      labels: { demo: 'true', trigger: 'nightly' },
      startedAt: new Date(startedAt).toISOString(),
    });
    const sim = simulateDemoRun(i);
    await addRunSamples(
      deps,
      caller,
      {
        id,
        batchId: `demo-run-${i}`,
        samples: sim.tps.map((tps, s) => ({
          ts: startedAt + (s + 1) * 1000,
          elapsed_s: s + 1,
          values: { tps, lat_avg_ms: sim.lat[s] },
        })),
      },
      writer,
    );
    await addRunResults(deps, caller, {
      id,
      metrics: [
        { name: 'tps', value: avg(sim.tps) },
        { name: 'lat_avg_ms', value: avg(sim.lat) },
      ],
    });
    await finishRun(deps, caller, {
      id,
      status: 'succeeded',
      exitCode: 0,
      finishedAt: new Date(startedAt + (SECONDS + 1) * 1000).toISOString(),
    });
  }
  return RUNS;
}
