import type { TDb } from '../client';

const withSlots = { include: { slots: { orderBy: { slot: 'desc' as const }, take: 10 } } };

export async function createSchedule(
  db: TDb,
  orgId: string,
  input: { workloadId: string; cron: string; timezone: string; clusterIds: string[]; enabled: boolean },
) {
  return db.workloadSchedule.create({ data: { organizationId: orgId, ...input }, ...withSlots });
}

export async function listSchedules(db: TDb, orgId: string, workloadId: string) {
  return db.workloadSchedule.findMany({
    where: { organizationId: orgId, workloadId },
    orderBy: { createdAt: 'asc' },
    ...withSlots,
  });
}

export async function deleteSchedule(db: TDb, orgId: string, id: string) {
  return (await db.workloadSchedule.deleteMany({ where: { id, organizationId: orgId } })).count > 0;
}

/** Every enabled schedule of every org (the scheduler's pass). */
export async function listEnabledSchedules(db: TDb) {
  return db.workloadSchedule.findMany({
    where: { enabled: true },
    include: { organization: { select: { slug: true } } },
  });
}

/**
 * Claims a (schedule, cluster, slot): true for the one caller whose insert made the row. The unique key is
 * the guard behind the scheduler's leader lock, so a slot never starts two runs.
 */
export async function claimScheduleSlot(db: TDb, scheduleId: string, clusterId: string, slot: Date) {
  const res = await db.scheduleSlot.createMany({
    data: [{ scheduleId, clusterId, slot }],
    skipDuplicates: true,
  });
  return res.count === 1;
}

export async function recordScheduleSlot(
  db: TDb,
  key: { scheduleId: string; clusterId: string; slot: Date },
  out: { runId?: string; skipped?: string },
) {
  await db.scheduleSlot.update({
    where: { scheduleId_clusterId_slot: key },
    data: { runId: out.runId ?? null, skipped: out.skipped ?? null },
  });
}

/** The run of the latest earlier slot of (schedule, cluster) that started one, with its status. */
export async function getPreviousSlotRun(db: TDb, scheduleId: string, clusterId: string, before: Date) {
  const s = await db.scheduleSlot.findFirst({
    where: { scheduleId, clusterId, slot: { lt: before }, runId: { not: null } },
    orderBy: { slot: 'desc' },
  });
  if (!s?.runId) return null;
  return db.run.findUnique({ where: { id: s.runId }, select: { id: true, status: true } });
}
