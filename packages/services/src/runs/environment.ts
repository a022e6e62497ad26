import { findRunsByIds, setRunEnvironment } from '@clusterscope/db';
import type { TRunEnvironment } from '@clusterscope/schema';
import { getEnvironment, getNodeEvents } from '@clusterscope/tsdb';
import type { TDeps } from '../core/deps';
import { notFound } from '../core/errors';
import { loadRunDbMetrics } from '../health/db-metrics';
import { readAnswerOf } from '../reads/series-cache';

type TRunWindow = {
  id: string;
  clusterId: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  updatedAt?: Date;
};

/** Window of a run: start to finish (or now while running); at least one second. */
export function getRunWindow(run: TRunWindow, now = Date.now()): { from: number; to: number } {
  const from = run.startedAt.getTime();
  const to = Math.max(from + 1000, run.finishedAt?.getTime() ?? now);
  return { from, to };
}

/** Cluster health during a run window from node_status + cgroup data (tsdb getEnvironment). */
export async function computeRunEnvironment(
  deps: TDeps,
  orgId: string,
  run: TRunWindow,
): Promise<TRunEnvironment> {
  if (!run.clusterId)
    return { healthy: null, reasons: ['run has no cluster'], env: null, events: [], db: null };
  const clusterId = run.clusterId;
  const { from, to } = getRunWindow(run);
  // A finished run's window is final once it is older than the cache's freshness edge.
  const key = `run-env|${from}|${run.finishedAt ? to : 'now'}`;
  const [env, events, db] = await readAnswerOf(deps.series, orgId, clusterId, key, to, () =>
    Promise.all([
      getEnvironment(deps.ch, { orgId, clusterId, from, to }),
      getNodeEvents(deps.ch, { orgId, clusterId, from, to, lookbackMs: 60_000, limit: 200 }),
      loadRunDbMetrics(deps, orgId, clusterId, from, to),
    ]),
  );
  const noData = !env.has_node_data && env.max_throttled_ratio === null && env.max_mem_ratio === null;
  return {
    healthy: noData ? null : env.healthy,
    reasons: noData ? ['no cluster data in the run window'] : env.reasons,
    env,
    events,
    db,
  };
}

/** Computes the run's environment and stores it on Run.env / Run.envHealthy (called when a run finishes). */
export async function refreshRunEnvironment(deps: TDeps, orgId: string, runId: string) {
  const [run] = await findRunsByIds(deps.db, orgId, [runId]);
  if (!run) throw notFound('run');
  const res = await computeRunEnvironment(deps, orgId, run);
  await setRunEnvironment(
    deps.db,
    orgId,
    runId,
    JSON.parse(JSON.stringify({ reasons: res.reasons, events: res.events, ...(res.env ?? {}) })),
    res.healthy,
  );
  return res;
}
