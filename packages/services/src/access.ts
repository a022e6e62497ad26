/**
 * The one read rule for runs and clusters: a caller sees its org's rows, and a token bound to a cluster
 * sees only that cluster's. Every run-reading path loads runs here (or passes `boundClusterOf` to the
 * repository query for lists), so a bound token gets NOT_FOUND for another cluster's run everywhere.
 */
import { findRunsByIds, getRun, type TRunRow } from '@clusterscope/db';
import type { TCaller } from './caller';
import type { TDeps } from './deps';
import { notFound } from './errors';

/** The cluster a token is bound to; undefined for sessions and unbound tokens (repository filters skip it). */
export const boundClusterOf = (caller: TCaller): string | undefined =>
  (caller.kind === 'token' && caller.clusterId) || undefined;

/** Whether the caller may see rows of `clusterId` (its org is checked by the query that found them). */
export const canSeeCluster = (caller: TCaller, clusterId: string | null): boolean => {
  const bound = boundClusterOf(caller);
  return !bound || bound === clusterId;
};

/** A run of the caller's org (and bound cluster), or NOT_FOUND. */
export async function loadRun(deps: TDeps, caller: TCaller, id: string): Promise<TRunRow> {
  const r = await getRun(deps.db, caller.orgId, id);
  if (!r || !canSeeCluster(caller, r.clusterId)) throw notFound(`run '${id}'`);
  return r;
}

/** Runs by id within the caller's org and bound cluster (missing or hidden ids are left out). */
export async function loadRuns(deps: TDeps, caller: TCaller, ids: readonly string[]) {
  return findRunsByIds(deps.db, caller.orgId, ids, boundClusterOf(caller));
}
