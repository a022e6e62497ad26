import type { TDb } from '../client';
import { Prisma, type RunStatus } from '../generated/prisma/client';

export type TThresholdRow = {
  workloadId: string;
  metric: string;
  test: string;
  limit: number;
  minSamples: number;
  windowSize: number;
  branch: string;
};

export async function listThresholds(db: TDb, orgId: string, workloadId?: string) {
  return db.threshold.findMany({
    where: { organizationId: orgId, ...(workloadId ? { workloadId } : {}) },
    orderBy: [{ workloadId: 'asc' }, { metric: 'asc' }],
  });
}

export async function getThreshold(db: TDb, orgId: string, id: string) {
  return db.threshold.findFirst({ where: { id, organizationId: orgId } });
}

/** Creates or replaces the threshold of (workload, metric). */
export async function upsertThreshold(db: TDb, orgId: string, input: TThresholdRow) {
  const { workloadId, metric, ...rest } = input;
  return db.threshold.upsert({
    where: { workloadId_metric: { workloadId, metric } },
    create: { organizationId: orgId, workloadId, metric, ...rest },
    update: rest,
  });
}

export async function deleteThreshold(db: TDb, orgId: string, id: string) {
  const res = await db.threshold.deleteMany({ where: { id, organizationId: orgId } });
  return res.count > 0;
}

export async function findThresholdWorkload(db: TDb, orgId: string, id: string) {
  return db.workload.findFirst({ where: { id, organizationId: orgId } });
}

export async function listWorkloadOverview(db: TDb, orgId: string) {
  return db.workload.findMany({
    where: { organizationId: orgId },
    orderBy: { name: 'asc' },
    select: { id: true, name: true, tool: true, description: true, _count: { select: { runs: true } } },
  });
}

// ---- run reads used by comparison, baselines, history and export ----

const runBrief = {
  include: {
    workload: { select: { name: true } },
    cluster: { select: { name: true } },
  },
} as const;

export type TRunQuery = {
  clusterId?: string;
  /** Workload id or name. */
  workload?: string;
  tool?: string;
  branch?: string;
  labelKey?: string;
  labelValue?: string;
  status?: RunStatus;
  from?: Date;
  to?: Date;
  limit: number;
  offset?: number;
};

function runWhere(orgId: string, q: TRunQuery): Prisma.RunWhereInput {
  const where: Prisma.RunWhereInput = { organizationId: orgId };
  if (q.clusterId) where.clusterId = q.clusterId;
  if (q.workload) where.OR = [{ workloadId: q.workload }, { workload: { name: q.workload } }];
  if (q.tool) where.tool = q.tool;
  if (q.branch) where.gitBranch = q.branch;
  if (q.status) where.status = q.status;
  if (q.labelKey)
    where.labels =
      q.labelValue === undefined
        ? { path: [q.labelKey], not: Prisma.AnyNull }
        : { path: [q.labelKey], equals: q.labelValue };
  if (q.from || q.to)
    where.startedAt = { ...(q.from ? { gte: q.from } : {}), ...(q.to ? { lte: q.to } : {}) };
  return where;
}

export async function searchRuns(db: TDb, orgId: string, q: TRunQuery) {
  return db.run.findMany({
    where: runWhere(orgId, q),
    orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
    take: q.limit,
    skip: q.offset ?? 0,
    ...runBrief,
  });
}

/** How many runs match the filters (the run list's total). */
export async function countRuns(db: TDb, orgId: string, q: TRunQuery) {
  return db.run.count({ where: runWhere(orgId, q) });
}

/** Of these runs, those "running" without an agent, with their workload's expected duration. */
export async function findUnattendedRuns(db: TDb, orgId: string, ids: readonly string[]) {
  return db.run.findMany({
    where: { organizationId: orgId, id: { in: [...ids] }, status: 'running', agentId: null },
    select: {
      id: true,
      startedAt: true,
      timeoutS: true,
      workload: { select: { durationS: true, warmupS: true } },
    },
  });
}

/** Runs by id in the org (and in `clusterId` when given: a token's bound cluster). */
export async function findRunsByIds(db: TDb, orgId: string, ids: readonly string[], clusterId?: string) {
  return db.run.findMany({
    where: { organizationId: orgId, id: { in: [...ids] }, ...(clusterId ? { clusterId } : {}) },
    ...runBrief,
  });
}

/**
 * Baseline window: the latest succeeded runs of the same workload on `branch` that started
 * before `before` (newest first). Runs flagged env-unhealthy are skipped.
 */
export async function findBaselineRuns(
  db: TDb,
  orgId: string,
  q: {
    workloadId: string | null;
    tool: string;
    toolWorkload: string;
    branch: string;
    before: Date;
    excludeId?: string;
    limit: number;
    /** A token's bound cluster: baselines only from it. */
    clusterId?: string;
  },
) {
  return db.run.findMany({
    where: {
      organizationId: orgId,
      ...(q.clusterId ? { clusterId: q.clusterId } : {}),
      ...(q.workloadId ? { workloadId: q.workloadId } : { tool: q.tool, toolWorkload: q.toolWorkload }),
      gitBranch: q.branch,
      status: 'succeeded',
      startedAt: { lt: q.before },
      // envHealthy IS DISTINCT FROM false (NOT (x = false) drops NULLs in SQL).
      OR: [{ envHealthy: null }, { envHealthy: true }],
      ...(q.excludeId ? { NOT: { id: q.excludeId } } : {}),
    },
    orderBy: { startedAt: 'desc' },
    take: q.limit,
    ...runBrief,
  });
}

/** Succeeded runs of a workload, oldest first (history charts). */
export async function findWorkloadHistory(
  db: TDb,
  orgId: string,
  workloadId: string,
  limit: number,
  clusterId?: string,
) {
  const rows = await db.run.findMany({
    where: { organizationId: orgId, workloadId, status: 'succeeded', ...(clusterId ? { clusterId } : {}) },
    orderBy: { startedAt: 'desc' },
    take: limit,
    ...runBrief,
  });
  return rows.reverse();
}

/** Stores the environment verdict computed when a run finished. */
export async function setRunEnvironment(
  db: TDb,
  orgId: string,
  runId: string,
  env: Prisma.InputJsonValue,
  healthy: boolean | null,
) {
  await db.run.updateMany({
    where: { id: runId, organizationId: orgId },
    data: { env, envHealthy: healthy },
  });
}
