import type { TDb } from '../client';
import { Prisma, type RunStatus } from '../generated/prisma/client';

const runInclude = {
  cluster: { select: { id: true, name: true } },
  workload: { select: { id: true, name: true } },
} as const;

export type TRunRow = Prisma.RunGetPayload<{ include: typeof runInclude }>;

/** A workload of the org by name, created with `tool` when missing. Returns null when missing and no tool. */
export async function findOrCreateWorkload(db: TDb, orgId: string, name: string, tool: string | null) {
  const hit = await db.workload.findUnique({
    where: { organizationId_name: { organizationId: orgId, name } },
  });
  if (hit || !tool) return hit;
  try {
    return await db.workload.create({ data: { organizationId: orgId, name, tool } });
  } catch (err) {
    // A concurrent create won the unique (org, name) race.
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002')
      return db.workload.findUnique({ where: { organizationId_name: { organizationId: orgId, name } } });
    throw err;
  }
}

export async function findWorkloadByIdOrName(db: TDb, orgId: string, idOrName: string) {
  return db.workload.findFirst({
    where: { organizationId: orgId, OR: [{ id: idOrName }, { name: idOrName }] },
  });
}

export async function insertRun(
  db: TDb,
  orgId: string,
  input: {
    clusterId: string;
    workloadId: string;
    workloadVersion: number;
    tool: string;
    params: Record<string, unknown>;
    gitRepo: string | null;
    gitBranch: string | null;
    gitSha: string | null;
    labels: Record<string, string>;
    startedAt: Date;
    createdById: string | null;
  },
): Promise<TRunRow> {
  return db.run.create({
    data: {
      organizationId: orgId,
      ...input,
      params: input.params as Prisma.InputJsonValue,
      status: 'running',
    },
    include: runInclude,
  });
}

export async function getRun(db: TDb, orgId: string, id: string): Promise<TRunRow | null> {
  return db.run.findFirst({ where: { id, organizationId: orgId }, include: runInclude });
}

export interface TRunFilter {
  clusterId?: string;
  workloadId?: string;
  tool?: string;
  branch?: string;
  status?: RunStatus;
  labels?: Record<string, string>;
  from?: Date;
  to?: Date;
}

/** Newest first; keyset pagination on (startedAt, id) through Prisma's cursor. */
export async function listRuns(
  db: TDb,
  orgId: string,
  filter: TRunFilter,
  page: { limit: number; cursor?: string },
): Promise<{ items: TRunRow[]; nextCursor: string | null }> {
  const where: Prisma.RunWhereInput = {
    organizationId: orgId,
    clusterId: filter.clusterId,
    workloadId: filter.workloadId,
    tool: filter.tool,
    gitBranch: filter.branch,
    status: filter.status,
    startedAt: filter.from || filter.to ? { gte: filter.from, lt: filter.to } : undefined,
    AND: Object.entries(filter.labels ?? {}).map(([k, v]) => ({
      labels: { path: [k], equals: v },
    })),
  };
  if (page.cursor) {
    const c = await db.run.findFirst({
      where: { id: page.cursor, organizationId: orgId },
      select: { id: true },
    });
    if (!c) return { items: [], nextCursor: null };
  }
  const rows = await db.run.findMany({
    where,
    include: runInclude,
    orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
    take: page.limit + 1,
    ...(page.cursor ? { cursor: { id: page.cursor }, skip: 1 } : {}),
  });
  const more = rows.length > page.limit;
  const items = more ? rows.slice(0, page.limit) : rows;
  return { items, nextCursor: more ? items[items.length - 1].id : null };
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

export async function countWorkloadRuns(db: TDb, orgId: string, workloadName: string) {
  return db.run.count({ where: { organizationId: orgId, workload: { name: workloadName } } });
}
