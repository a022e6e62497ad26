import type { TDb } from '../client';
import { Prisma } from '../generated/prisma/client';

export interface TWorkloadData {
  name: string;
  tool: string;
  params: Record<string, unknown>;
  /** Redacted form (password shown as ***). */
  target: string;
  /** The full target, sealed (AES-256-GCM), when it carries a password. */
  targetSecret?: string | null;
  durationS: number;
  warmupS: number;
  description: string;
  verdictMetrics?: string[];
  confirmRuns?: number;
  changeClusterIds?: string[];
}

const withRuns = {
  _count: { select: { runs: true } },
  runs: {
    orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
    take: 1,
    select: { id: true, status: true, startedAt: true, clusterId: true },
  },
} as const satisfies Prisma.WorkloadInclude;

export type TWorkloadRow = Prisma.WorkloadGetPayload<{ include: typeof withRuns }>;

/** Thrown when a name is already taken in the org. */
export class DuplicateNameError extends Error {}

const isDuplicate = (err: unknown) =>
  err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';

export async function listWorkloads(db: TDb, orgId: string): Promise<TWorkloadRow[]> {
  return db.workload.findMany({
    where: { organizationId: orgId },
    orderBy: { name: 'asc' },
    include: withRuns,
  });
}

/** By id, else by name. */
export async function getWorkload(db: TDb, orgId: string, idOrName: string): Promise<TWorkloadRow | null> {
  return db.workload.findFirst({
    where: { organizationId: orgId, OR: [{ id: idOrName }, { name: idOrName }] },
    include: withRuns,
  });
}

/** A workload of the org by name, created with `tool` when missing. Returns null when missing and no tool. */
export async function findOrCreateWorkload(db: TDb, orgId: string, name: string, tool: string | null) {
  const byName = { organizationId_name: { organizationId: orgId, name } };
  const hit = await db.workload.findUnique({ where: byName });
  if (hit || !tool) return hit;
  try {
    return await db.workload.create({ data: { organizationId: orgId, name, tool } });
  } catch (err) {
    // A concurrent create won the unique (org, name) race.
    if (isDuplicate(err)) return db.workload.findUnique({ where: byName });
    throw err;
  }
}

export async function insertWorkload(db: TDb, orgId: string, data: TWorkloadData): Promise<TWorkloadRow> {
  try {
    return await db.workload.create({
      data: { organizationId: orgId, ...data, params: data.params as Prisma.InputJsonValue },
      include: withRuns,
    });
  } catch (err) {
    if (isDuplicate(err)) throw new DuplicateNameError(data.name);
    throw err;
  }
}

/** Applies a change and bumps the version (only when something changed); null when missing. */
export async function updateWorkload(
  db: TDb,
  orgId: string,
  id: string,
  data: Partial<TWorkloadData>,
  expectedVersion: number,
): Promise<TWorkloadRow | null> {
  try {
    const res = await db.workload.updateMany({
      where: { id, organizationId: orgId, version: expectedVersion },
      data: {
        ...data,
        params: data.params as Prisma.InputJsonValue | undefined,
        version: { increment: 1 },
      },
    });
    if (res.count === 0) return null;
  } catch (err) {
    if (isDuplicate(err)) throw new DuplicateNameError(data.name ?? '');
    throw err;
  }
  return getWorkload(db, orgId, id);
}

export async function deleteWorkload(db: TDb, orgId: string, id: string): Promise<boolean> {
  const res = await db.workload.deleteMany({ where: { id, organizationId: orgId } });
  return res.count > 0;
}

/** Every workload whose target may hold a credential: sealed, or (before the backfill) a URL with a password. */
export async function listWorkloadSecrets(db: TDb) {
  return db.workload.findMany({
    where: { OR: [{ targetSecret: { not: null } }, { target: { contains: '@' } }] },
    select: { id: true, organizationId: true, target: true, targetSecret: true },
    orderBy: { id: 'asc' },
  });
}

/** Replaces the stored target/secret only when they are still what the caller read (no version bump). */
export async function replaceWorkloadSecret(
  db: TDb,
  id: string,
  from: { target: string; targetSecret: string | null },
  to: { target: string; targetSecret: string | null },
): Promise<boolean> {
  const res = await db.workload.updateMany({
    where: { id, target: from.target, targetSecret: from.targetSecret },
    data: to,
  });
  return res.count > 0;
}

/** The agents of a cluster that may claim its jobs, with what they advertise. */
export async function listClusterJobAgents(db: TDb, orgId: string, clusterId: string) {
  return db.agent.findMany({
    where: { organizationId: orgId, clusterId },
    select: {
      id: true,
      name: true,
      capabilities: true,
      disabledTools: true,
      jobLimits: true,
      lastSeenAt: true,
    },
    orderBy: [{ lastSeenAt: { sort: 'desc', nulls: 'last' } }, { name: 'asc' }],
  });
}
