import type { TDb } from '../client';

export async function createAlert(
  db: TDb,
  orgId: string,
  input: {
    runId: string;
    thresholdId: string | null;
    metric: string;
    value: number;
    baseline: number | null;
    message: string;
  },
) {
  return db.alert.create({ data: { organizationId: orgId, ...input } });
}

const withRun = {
  include: { run: { select: { workloadId: true, gitBranch: true, gitSha: true } } },
} as const;

export async function listAlerts(
  db: TDb,
  orgId: string,
  q: { workloadId?: string; runId?: string; unacknowledged?: boolean; limit: number },
) {
  return db.alert.findMany({
    where: {
      organizationId: orgId,
      ...(q.runId ? { runId: q.runId } : {}),
      ...(q.workloadId ? { run: { workloadId: q.workloadId } } : {}),
      ...(q.unacknowledged ? { acknowledgedAt: null } : {}),
    },
    orderBy: { createdAt: 'desc' },
    take: q.limit,
    ...withRun,
  });
}

export async function getAlert(db: TDb, orgId: string, id: string) {
  return db.alert.findFirst({ where: { id, organizationId: orgId }, ...withRun });
}

/** Marks an alert acknowledged; an already acknowledged alert keeps its first ack. */
export async function acknowledgeAlert(db: TDb, orgId: string, id: string, by: string) {
  await db.alert.updateMany({
    where: { id, organizationId: orgId, acknowledgedAt: null },
    data: { acknowledgedAt: new Date(), acknowledgedBy: by },
  });
  return getAlert(db, orgId, id);
}
