/**
 * The run read-model and the one read rule for runs and clusters: a caller sees its org's rows, and a token
 * bound to a cluster sees only that cluster's. Every run read goes through `loadRun`/`loadRuns`/`listRuns`
 * here, which pass the org AND the bound cluster to the repository query, so a bound token gets NOT_FOUND
 * (or no rows) for another cluster's run everywhere. The mappers below turn a run row into the API shapes.
 */
import {
  countRuns,
  findRunsByIds,
  getRun,
  listRuns,
  type TRunPageIn,
  type TRunQuery,
  type TRunRow,
  type TRunRowPage,
} from '@clusterscope/db';
import { ZMetric, type TMetric, type TRun, type TRunBrief } from '@clusterscope/schema';
import type { TCaller } from './caller';
import type { TDeps } from '../core/deps';
import { notFound } from '../core/errors';

export type { TRunRow };

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
  const r = await getRun(deps.db, caller.orgId, id, boundClusterOf(caller));
  if (!r) throw notFound(`run '${id}'`);
  return r;
}

/** Runs by id within the caller's org and bound cluster (missing or hidden ids are left out). */
export async function loadRuns(deps: TDeps, caller: TCaller, ids: readonly string[]): Promise<TRunRow[]> {
  return findRunsByIds(deps.db, caller.orgId, ids, boundClusterOf(caller));
}

/** The query narrowed to the caller's bound cluster; null when it names another cluster (no rows). */
function scoped(caller: TCaller, q: TRunQuery): TRunQuery | null {
  const bound = boundClusterOf(caller);
  if (bound && q.clusterId && q.clusterId !== bound) return null;
  return { ...q, clusterId: bound ?? q.clusterId };
}

/** Runs matching the query within the caller's org and bound cluster, newest first. */
export async function queryRuns(
  deps: TDeps,
  caller: TCaller,
  q: TRunQuery,
  page: TRunPageIn,
): Promise<TRunRowPage> {
  const s = scoped(caller, q);
  return s ? listRuns(deps.db, caller.orgId, s, page) : { items: [], nextCursor: null };
}

/** How many runs the caller sees for the query. */
export async function countVisibleRuns(deps: TDeps, caller: TCaller, q: TRunQuery): Promise<number> {
  const s = scoped(caller, q);
  return s ? countRuns(deps.db, caller.orgId, s) : 0;
}

const asRecord = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

const toLabels = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(asRecord(v)).map(([k, x]) => [k, String(x)]));

/** Run.summary JSON as metrics (invalid entries are dropped). */
export function getRunSummary(r: { summary: unknown }): TMetric[] {
  if (!Array.isArray(r.summary)) return [];
  return r.summary.flatMap((m) => {
    const x = ZMetric.safeParse(m);
    return x.success ? [x.data] : [];
  });
}

/** Run row → the pages' brief (dates as Date). */
export function toRunBrief(r: TRunRow): TRunBrief {
  return {
    id: r.id,
    tool: r.tool,
    toolWorkload: r.toolWorkload,
    workloadId: r.workloadId,
    workloadName: r.workload?.name ?? null,
    clusterId: r.clusterId,
    clusterName: r.cluster?.name ?? null,
    gitBranch: r.gitBranch,
    gitSha: r.gitSha,
    labels: toLabels(r.labels),
    status: r.status,
    envHealthy: r.envHealthy,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
  };
}

/** Run row → the REST shape (dates as ISO strings, summary metrics with unit + direction). */
export function toRunDto(r: TRunRow): TRun {
  const b = toRunBrief(r);
  return {
    id: b.id,
    clusterId: b.clusterId,
    clusterName: b.clusterName,
    workloadId: b.workloadId,
    workloadName: b.workloadName,
    tool: b.tool,
    toolWorkload: b.toolWorkload,
    params: asRecord(r.params),
    git: { repo: r.gitRepo, branch: b.gitBranch, sha: b.gitSha },
    labels: b.labels,
    status: b.status,
    exitCode: r.exitCode,
    error: r.error,
    summary: getRunSummary(r),
    warnings: r.warnings,
    envHealthy: b.envHealthy,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
  };
}
