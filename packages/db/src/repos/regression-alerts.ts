import type { TDb } from '../client';

export async function createRegressionAlert(
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
  return db.regressionAlert.create({ data: { organizationId: orgId, ...input } });
}

const withRun = {
  include: { run: { select: { workloadId: true, gitBranch: true, gitSha: true } } },
} as const;

export async function listRegressionAlerts(
  db: TDb,
  orgId: string,
  q: { workloadId?: string; runId?: string; unacknowledged?: boolean; limit: number; clusterId?: string },
) {
  return db.regressionAlert.findMany({
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
export async function getRegressionAlert(db: TDb, orgId: string, id: string, clusterId?: string) {
  return db.regressionAlert.findFirst({
    where: { id, organizationId: orgId, ...(clusterId ? { run: { clusterId } } : {}) },
    ...withRun,
  });
}

/** Marks an alert acknowledged; an already acknowledged alert keeps its first ack. */
export async function acknowledgeRegressionAlert(
  db: TDb,
  orgId: string,
  id: string,
  by: string,
  clusterId?: string,
) {
  await db.regressionAlert.updateMany({
    where: { id, organizationId: orgId, acknowledgedAt: null, ...(clusterId ? { run: { clusterId } } : {}) },
    data: { acknowledgedAt: new Date(), acknowledgedBy: by },
  });
  return getRegressionAlert(db, orgId, id, clusterId);
}
