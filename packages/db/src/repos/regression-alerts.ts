import type { TDb } from '../client';
import type { RegressionAlert } from '../generated/prisma/client';

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
    /** none | suspected (waits for confirmation runs) */
    confirmation?: string;
    confirmNote?: string;
  },
) {
  return db.regressionAlert.create({ data: { organizationId: orgId, ...input } });
}

/** A run's alerts still waiting for confirmation. */
export async function listSuspectedAlerts(db: TDb, orgId: string, runId: string) {
  return db.regressionAlert.findMany({ where: { organizationId: orgId, runId, confirmation: 'suspected' } });
}

/**
 * Moves a suspected alert to confirmed or not_confirmed. True only for the caller whose update made the
 * move, so two confirmation runs finishing at once notify once.
 */
export async function settleRegressionAlert(
  db: TDb,
  orgId: string,
  id: string,
  to: { confirmation: 'confirmed' | 'not_confirmed'; note: string },
): Promise<boolean> {
  const r = await db.regressionAlert.updateMany({
    where: { id, organizationId: orgId, confirmation: 'suspected' },
    data: { confirmation: to.confirmation, confirmNote: to.note },
  });
  return r.count === 1;
}

/** A workload's regression alerts since a time, on one cluster or all: the rows the precision counts read. */
type TWorkloadAlerts = [db: TDb, orgId: string, workloadId: string, since: Date, clusterId?: string];

async function countAlertsBy<K extends 'status' | 'confirmation'>(
  key: K,
  ...[db, orgId, workloadId, since, clusterId]: TWorkloadAlerts
) {
  // Prisma cannot infer groupBy's row type from a generic key; the rows are the key's value and a count.
  const rows = (await db.regressionAlert.groupBy({
    by: [key],
    where: {
      organizationId: orgId,
      createdAt: { gte: since },
      run: { workloadId, ...(clusterId ? { clusterId } : {}) },
    },
    _count: { _all: true },
  })) as unknown as (Pick<RegressionAlert, K> & { _count: { _all: number } })[];
  return new Map(rows.map((r) => [r[key], r._count._all]));
}

/** A workload's alerts since `since` by confirmation state. */
export const countRegressionAlertsByConfirmation = (...a: TWorkloadAlerts) =>
  countAlertsBy('confirmation', ...a);

/** Alerts that notified (confirmed, or without confirmation) triaged invalid since `since`. */
export async function countNotifiedAlerts(
  db: TDb,
  orgId: string,
  workloadId: string,
  since: Date,
  clusterId?: string,
) {
  const where = {
    organizationId: orgId,
    createdAt: { gte: since },
    confirmation: { in: ['none', 'confirmed'] },
    run: { workloadId, ...(clusterId ? { clusterId } : {}) },
  };
  const [all, invalid] = await Promise.all([
    db.regressionAlert.count({ where }),
    db.regressionAlert.count({ where: { ...where, status: 'invalid' } }),
  ]);
  return { all, invalid };
}

const withRun = {
  include: { run: { select: { workloadId: true, gitBranch: true, gitSha: true, startedAt: true } } },
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
  // An untriaged alert that is acknowledged is triaged "acknowledged" (a later status is kept).
  await db.regressionAlert.updateMany({
    where: { id, organizationId: orgId, status: 'untriaged', ...(clusterId ? { run: { clusterId } } : {}) },
    data: { status: 'acknowledged', triagedAt: new Date(), triagedBy: by },
  });
  return getRegressionAlert(db, orgId, id, clusterId);
}

/**
 * Sets an alert's triage status with who/when/note/link; "acknowledged" also fills the acknowledgement
 * when the alert had none. Null when the alert is not the org's (or not of `clusterId`).
 */
export async function triageRegressionAlert(
  db: TDb,
  orgId: string,
  id: string,
  input: { status: string; by: string; note?: string; issueUrl?: string | null },
  clusterId?: string,
) {
  const where = { id, organizationId: orgId, ...(clusterId ? { run: { clusterId } } : {}) };
  const now = new Date();
  const res = await db.regressionAlert.updateMany({
    where,
    data: {
      status: input.status,
      triagedAt: now,
      triagedBy: input.by,
      ...(input.note !== undefined ? { triageNote: input.note } : {}),
      ...(input.issueUrl !== undefined ? { issueUrl: input.issueUrl } : {}),
    },
  });
  if (res.count === 0) return null;
  if (input.status === 'acknowledged')
    await db.regressionAlert.updateMany({
      where: { ...where, acknowledgedAt: null },
      data: { acknowledgedAt: now, acknowledgedBy: input.by },
    });
  return getRegressionAlert(db, orgId, id, clusterId);
}

/** Alerts of a workload since `since` by triage status (precision counts). */
export const countRegressionAlertsByStatus = (...a: TWorkloadAlerts) => countAlertsBy('status', ...a);

/** Makes threshold baselines of a workload start at `from` (an alert triaged "expected"). */
export async function setWorkloadBaselineFrom(db: TDb, orgId: string, workloadId: string, from: Date) {
  await db.workload.updateMany({
    where: { id: workloadId, organizationId: orgId },
    data: { baselineFrom: from },
  });
}
