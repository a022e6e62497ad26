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
  q: { workloadId?: string; runId?: string; unacknowledged?: boolean; limit: number; clusterId?: string },
) {
  return db.alert.findMany({
    where: {
      organizationId: orgId,
      ...(q.runId ? { runId: q.runId } : {}),
      ...(q.workloadId || q.clusterId
        ? {
            run: {
              ...(q.workloadId ? { workloadId: q.workloadId } : {}),
              ...(q.clusterId ? { clusterId: q.clusterId } : {}),
            },
          }
        : {}),
      ...(q.unacknowledged ? { acknowledgedAt: null } : {}),
    },
    orderBy: { createdAt: 'desc' },
    take: q.limit,
    ...withRun,
  });
}

/** An alert of the org (and of a run in `clusterId` when given: a token's bound cluster). */
export async function getAlert(db: TDb, orgId: string, id: string, clusterId?: string) {
  return db.alert.findFirst({
    where: { id, organizationId: orgId, ...(clusterId ? { run: { clusterId } } : {}) },
    ...withRun,
  });
}

/** Marks an alert acknowledged; an already acknowledged alert keeps its first ack. */
export async function acknowledgeAlert(db: TDb, orgId: string, id: string, by: string, clusterId?: string) {
  await db.alert.updateMany({
    where: { id, organizationId: orgId, acknowledgedAt: null, ...(clusterId ? { run: { clusterId } } : {}) },
    data: { acknowledgedAt: new Date(), acknowledgedBy: by },
  });
  return getAlert(db, orgId, id, clusterId);
}
