import { findUnattendedRuns, type TRunQuery, type TRunRow } from '@clusterscope/db';
import type { TRunFilter, TRunListMeta, TRunsPageView } from '@clusterscope/schema';
import { countBenchSamples } from '@clusterscope/tsdb';
import type { TDeps } from '../core/deps';
import { assertCan, type TCaller } from '../tenancy/caller';
import { toRunListRows, toRunQuery } from './compare';
import { countVisibleRuns, queryRuns } from '../tenancy/access';
import { listClusters } from '../tenancy/clusters';

/** Grace on top of a run's expected duration before a silent "running" run is flagged. */
export const STUCK_GRACE_S = 300;

/**
 * Pure: a run is stuck when it is still "running" with no agent and no interval samples, for longer than
 * its expected duration (the workload's warm-up + duration) plus STUCK_GRACE_S.
 */
export function isRunStuck(r: { startedAt: Date; samples: number; expectedS: number }, now: number): boolean {
  return r.samples === 0 && now - r.startedAt.getTime() > (r.expectedS + STUCK_GRACE_S) * 1000;
}

/** The runs page in one call: the page of runs (read once) with verdicts, its meta and the clusters. */
export async function getRunsPage(
  deps: TDeps,
  caller: TCaller,
  filter: TRunFilter,
  now = Date.now(),
): Promise<TRunsPageView> {
  assertCan(caller, { run: ['read'] });
  const q = await toRunQuery(deps, caller, filter);
  const rows = q ? (await queryRuns(deps, caller, q.q, { limit: q.limit, offset: q.offset })).items : [];
  const [runs, meta, clusters] = await Promise.all([
    toRunListRows(deps, caller, rows),
    toRunListMeta(deps, caller, q?.q ?? null, rows, now),
    listClusters(deps, caller),
  ]);
  return { runs, meta, clusters };
}

/** The run list's total for the query and the stuck runs among `rows` (the page). */
async function toRunListMeta(
  deps: TDeps,
  caller: TCaller,
  q: TRunQuery | null,
  rows: readonly TRunRow[],
  now: number,
): Promise<TRunListMeta> {
  const total = q ? await countVisibleRuns(deps, caller, q) : 0;
  const running = await findUnattendedRuns(
    deps.db,
    caller.orgId,
    rows.map((r) => r.id),
  );
  const samples = await countBenchSamples(
    deps.ch,
    caller.orgId,
    running.map((r) => r.id),
  );
  const stuck = running.flatMap((r) => {
    const expectedS = r.workload ? r.workload.durationS + r.workload.warmupS : r.timeoutS;
    return isRunStuck({ startedAt: r.startedAt, samples: samples.get(r.id) ?? 0, expectedS }, now)
      ? [{ id: r.id, expected_s: expectedS }]
      : [];
  });
  return { total, stuck };
}
