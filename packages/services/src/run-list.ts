import { findUnattendedRuns } from '@clusterscope/db';
import type { TRunListMeta } from '@clusterscope/schema';
import { countBenchSamples } from '@clusterscope/tsdb';
import type { TDeps } from './deps';
import type { TCaller } from './caller';
import { findRunRows, toRunQuery } from './compare';
import { countVisibleRuns } from './access';
import type { TRunFilter } from '@clusterscope/schema';

/** Grace on top of a run's expected duration before a silent "running" run is flagged. */
export const STUCK_GRACE_S = 300;

/**
 * Pure: a run is stuck when it is still "running" with no agent and no interval samples, for longer than
 * its expected duration (the workload's warm-up + duration) plus STUCK_GRACE_S.
 */
export function isRunStuck(r: { startedAt: Date; samples: number; expectedS: number }, now: number): boolean {
  return r.samples === 0 && now - r.startedAt.getTime() > (r.expectedS + STUCK_GRACE_S) * 1000;
}

/** The run list's total for the filter and the stuck runs of the page the filter selects. */
export async function getRunListMeta(
  deps: TDeps,
  caller: TCaller,
  filter: TRunFilter,
  now = Date.now(),
): Promise<TRunListMeta> {
  const rows = await findRunRows(deps, caller, filter);
  const q = await toRunQuery(deps, caller, filter);
  const total = q ? await countVisibleRuns(deps, caller, q.q) : 0;
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
