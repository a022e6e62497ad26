import type { TDb } from '../client';
import { Prisma, type RunStatus } from '../generated/prisma/client';

const runInclude = {
  cluster: { select: { id: true, name: true } },
  workload: { select: { id: true, name: true, verdictMetrics: true, baselineFrom: true, confirmRuns: true } },
} as const;

export type TRunRow = Prisma.RunGetPayload<{ include: typeof runInclude }>;

/** What every new run row names: where, which workload version and tool, with what, by whom. */
export interface TRunInsert {
  /** A confirmation run: the suspected run it re-runs. */
  confirmsRunId?: string | null;
  /** Confirmation runs a suspected regression of this run waits for (CLI --confirm). */
  confirmRuns?: number | null;
  clusterId: string;
  workloadId: string;
  workloadVersion: number;
  tool: string;
  params: Record<string, unknown>;
  labels: Record<string, string>;
  createdById: string | null;
}

export async function insertRun(
  db: TDb,
  orgId: string,
  input: TRunInsert & {
    gitRepo: string | null;
    gitBranch: string | null;
    gitSha: string | null;
    startedAt: Date;
    machine?: Record<string, unknown> | null;
    machineKind?: string | null;
  },
): Promise<TRunRow> {
  return db.run.create({
    data: {
      organizationId: orgId,
      ...input,
      params: input.params as Prisma.InputJsonValue,
      machine: (input.machine ?? undefined) as Prisma.InputJsonValue | undefined,
      status: 'running',
    },
    include: runInclude,
  });
}

/** A run of the org, and of `clusterId` when given (a token's bound cluster). */
export async function getRun(
  db: TDb,
  orgId: string,
  id: string,
  clusterId?: string,
): Promise<TRunRow | null> {
  return db.run.findFirst({ where: { id, organizationId: orgId, clusterId }, include: runInclude });
}

/** Filters of the run list, REST `runs.list` and exports. */
export type TRunQuery = {
  /** A token's bound cluster, or the cluster the caller picked. */
  clusterId?: string;
  /** Workload id or name. */
  workload?: string;
  tool?: string;
  branch?: string;
  status?: RunStatus;
  /** Each label must match (a key without value: the label is set). */
  labels?: { key: string; value?: string }[];
  /** startedAt ≥ from. */
  from?: Date;
  /** startedAt < to. */
  to?: Date;
};

function runWhere(orgId: string, q: TRunQuery): Prisma.RunWhereInput {
  return {
    organizationId: orgId,
    clusterId: q.clusterId,
    ...(q.workload ? { OR: [{ workloadId: q.workload }, { workload: { name: q.workload } }] } : {}),
    tool: q.tool,
    gitBranch: q.branch,
    status: q.status,
    startedAt: q.from || q.to ? { gte: q.from, lt: q.to } : undefined,
    AND: (q.labels ?? []).map((l) => ({
      labels:
        l.value === undefined ? { path: [l.key], not: Prisma.AnyNull } : { path: [l.key], equals: l.value },
    })),
  };
}

/**
 * Runs matching the query, newest first: keyset pages on (startedAt, id) with `cursor` (REST), or
 * offset pages (the run list page).
 */
export type TRunPageIn = { limit: number; cursor?: string; offset?: number };
export type TRunRowPage = { items: TRunRow[]; nextCursor: string | null };

export async function listRuns(db: TDb, orgId: string, q: TRunQuery, page: TRunPageIn): Promise<TRunRowPage> {
  if (page.cursor) {
    const c = await db.run.findFirst({
      where: { id: page.cursor, organizationId: orgId },
      select: { id: true },
    });
    if (!c) return { items: [], nextCursor: null };
  }
  const rows = await db.run.findMany({
    where: runWhere(orgId, q),
    include: runInclude,
    orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
    take: page.limit + 1,
    ...(page.cursor ? { cursor: { id: page.cursor }, skip: 1 } : { skip: page.offset ?? 0 }),
  });
  const more = rows.length > page.limit;
  const items = more ? rows.slice(0, page.limit) : rows;
  return { items, nextCursor: more ? items[items.length - 1].id : null };
}

/** How many runs match the query (the run list's total). */
export async function countRuns(db: TDb, orgId: string, q: TRunQuery) {
  return db.run.count({ where: runWhere(orgId, q) });
}

/** Runs by id in the org (and in `clusterId` when given: a token's bound cluster). */
export async function findRunsByIds(
  db: TDb,
  orgId: string,
  ids: readonly string[],
  clusterId?: string,
): Promise<TRunRow[]> {
  return db.run.findMany({
    where: { organizationId: orgId, id: { in: [...ids] }, clusterId },
    include: runInclude,
  });
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
    /** A git branch, or null: runs Clusterscope queued on an agent without a branch (the dashboard lane). */
    branch: string | null;
    before: Date;
    /** Only runs started at or after this (the workload's baseline reset). */
    after?: Date | null;
    excludeId?: string;
    limit: number;
    /** A token's bound cluster: baselines only from it. */
    clusterId?: string;
    /** Only runs on this kind of machine (getMachineKind). */
    machineKind?: string;
  },
): Promise<TRunRow[]> {
  return db.run.findMany({
    where: {
      organizationId: orgId,
      clusterId: q.clusterId,
      machineKind: q.machineKind,
      ...(q.workloadId ? { workloadId: q.workloadId } : { tool: q.tool, toolWorkload: q.toolWorkload }),
      gitBranch: q.branch,
      ...(q.branch === null ? { queuedAt: { not: null } } : {}),
      status: 'succeeded',
      startedAt: { lt: q.before, ...(q.after ? { gte: q.after } : {}) },
      // envHealthy IS DISTINCT FROM false (NOT (x = false) drops NULLs in SQL).
      OR: [{ envHealthy: null }, { envHealthy: true }],
      ...(q.excludeId ? { NOT: { id: q.excludeId } } : {}),
    },
    // id breaks ties, so a window read for many runs at once picks the same runs (compare.ts).
    orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
    take: q.limit,
    include: runInclude,
  });
}

/** Succeeded runs of a workload, oldest first (history charts). */
export async function findWorkloadHistory(
  db: TDb,
  orgId: string,
  workloadId: string,
  limit: number,
  clusterId?: string,
): Promise<TRunRow[]> {
  const rows = await db.run.findMany({
    where: { organizationId: orgId, workloadId, status: 'succeeded', clusterId },
    orderBy: { startedAt: 'desc' },
    take: limit,
    include: runInclude,
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

/** Updates a run that is not finished yet; null when it is finished (or missing). */
export async function updateOpenRun(
  db: TDb,
  orgId: string,
  id: string,
  data: {
    status?: RunStatus;
    exitCode?: number | null;
    error?: string | null;
    finishedAt?: Date;
    rawOutput?: string;
    toolWorkload?: string;
    summary?: unknown;
    warnings?: string[];
  },
): Promise<TRunRow | null> {
  const { summary, ...rest } = data;
  const res = await db.run.updateMany({
    where: { id, organizationId: orgId, finishedAt: null },
    data: { ...rest, ...(summary !== undefined ? { summary: summary as Prisma.InputJsonValue } : {}) },
  });
  return res.count > 0 ? getRun(db, orgId, id) : null;
}

/** Updates summary/warnings/output of a run in any state (results may arrive after finish). */
export async function updateRunResults(
  db: TDb,
  orgId: string,
  id: string,
  data: {
    rawOutput?: string;
    toolWorkload?: string;
    summary?: unknown;
    warnings?: string[];
    /** The output ended in an error: finishing the run as succeeded turns it into failed. */
    error?: string | null;
  },
): Promise<TRunRow | null> {
  const { summary, ...rest } = data;
  const res = await db.run.updateMany({
    where: { id, organizationId: orgId },
    data: { ...rest, ...(summary !== undefined ? { summary: summary as Prisma.InputJsonValue } : {}) },
  });
  return res.count > 0 ? getRun(db, orgId, id) : null;
}

/** Stores a run's one evaluation (verdicts, baseline, confirmation). */
export async function storeRunEvaluation(db: TDb, orgId: string, id: string, evaluation: unknown) {
  await db.run.updateMany({
    where: { id, organizationId: orgId },
    data: { evaluation: evaluation as Prisma.InputJsonValue },
  });
}

/** Makes a queued run a confirmation run of `confirmsRunId`, on that run's git lane. */
export async function markConfirmationRun(
  db: TDb,
  orgId: string,
  id: string,
  of: { confirmsRunId: string; gitRepo: string | null; gitBranch: string | null; gitSha: string | null },
) {
  await db.run.updateMany({ where: { id, organizationId: orgId }, data: of });
}

/** The confirmation runs of a suspected run, oldest first. */
export async function findConfirmationRuns(db: TDb, orgId: string, confirmsRunId: string) {
  return db.run.findMany({
    where: { organizationId: orgId, confirmsRunId },
    orderBy: [{ startedAt: 'asc' }, { id: 'asc' }],
    include: runInclude,
  });
}

export async function countWorkloadRuns(db: TDb, orgId: string, workloadName: string) {
  return db.run.count({ where: { organizationId: orgId, workload: { name: workloadName } } });
}
