import {
  acknowledgeRegressionAlert,
  countRegressionAlertsByStatus,
  getRegressionAlert,
  listRegressionAlerts,
  setWorkloadBaselineFrom,
  triageRegressionAlert,
} from '@clusterscope/db';
import {
  ZRegressionAlertStatus,
  ZRegressionAlertTriage,
  type TAlertPrecision,
  type TRegressionAlert,
  type TRegressionAlertStatus,
  type TRegressionAlertTriage,
} from '@clusterscope/schema';
import { audit } from './audit';
import type { TDeps } from './deps';
import { assertCan, type TCaller } from './caller';
import { boundClusterOf } from './access';
import { notFound } from './errors';

const actorOf = (caller: TCaller) =>
  caller.kind === 'user' ? `user:${caller.userId}` : `token:${caller.tokenId}`;

type TRegressionAlertRow = NonNullable<Awaited<ReturnType<typeof getRegressionAlert>>>;

export function toRegressionAlert(a: TRegressionAlertRow): TRegressionAlert {
  return {
    id: a.id,
    runId: a.runId,
    thresholdId: a.thresholdId,
    workloadId: a.run.workloadId,
    metric: a.metric,
    value: a.value,
    baseline: a.baseline,
    message: a.message,
    createdAt: a.createdAt,
    acknowledgedAt: a.acknowledgedAt,
    acknowledgedBy: a.acknowledgedBy,
    status: ZRegressionAlertStatus.catch('untriaged').parse(a.status),
    triagedAt: a.triagedAt,
    triagedBy: a.triagedBy,
    triageNote: a.triageNote,
    issueUrl: a.issueUrl,
    gitBranch: a.run.gitBranch,
    gitSha: a.run.gitSha,
  };
}

export async function findRegressionAlerts(
  deps: TDeps,
  caller: TCaller,
  q: { workloadId?: string; runId?: string; unacknowledged?: boolean; limit?: number } = {},
) {
  assertCan(caller, { alert: ['read'] });
  return (
    await listRegressionAlerts(deps.db, caller.orgId, {
      ...q,
      limit: q.limit ?? 100,
      clusterId: boundClusterOf(caller),
    })
  ).map(toRegressionAlert);
}

/** Acknowledges an alert (idempotent: the first acknowledgement is kept). */
export async function ackRegressionAlert(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { alert: ['ack'] });
  const a = await acknowledgeRegressionAlert(
    deps.db,
    caller.orgId,
    id,
    actorOf(caller),
    boundClusterOf(caller),
  );
  if (!a) throw notFound('alert');
  return toRegressionAlert(a);
}

/**
 * Triages an alert (who/when/note/issue link). "expected" accepts the change: the workload's threshold
 * baselines start at the alert's run from then on, so later runs are judged against the new level (as
 * Bencher's threshold reset).
 */
export async function triageAlert(deps: TDeps, caller: TCaller, input: TRegressionAlertTriage) {
  assertCan(caller, { alert: ['ack'] });
  const q = ZRegressionAlertTriage.parse(input);
  const a = await triageRegressionAlert(
    deps.db,
    caller.orgId,
    q.id,
    { status: q.status, by: actorOf(caller), note: q.note, issueUrl: q.issueUrl },
    boundClusterOf(caller),
  );
  if (!a) throw notFound('alert');
  if (q.status === 'expected' && a.run.workloadId)
    await setWorkloadBaselineFrom(deps.db, caller.orgId, a.run.workloadId, a.run.startedAt);
  await audit(deps, caller, {
    action: 'regression_alert.triage',
    targetId: a.id,
    data: { status: q.status, issueUrl: q.issueUrl ?? null },
  });
  return toRegressionAlert(a);
}

/** Window of the precision counts shown on the workload page and in the run report. */
export const PRECISION_DAYS = 90;

/** A workload's alerts over the last `days` by triage status, and the share triaged invalid. */
export async function getAlertPrecision(
  deps: TDeps,
  caller: TCaller,
  workloadId: string,
  days = PRECISION_DAYS,
  now = new Date(),
): Promise<TAlertPrecision> {
  const since = new Date(now.getTime() - days * 86_400_000);
  const counts = await countRegressionAlertsByStatus(
    deps.db,
    caller.orgId,
    workloadId,
    since,
    boundClusterOf(caller),
  );
  const byStatus = Object.fromEntries(
    ZRegressionAlertStatus.options.map((s) => [s, counts.get(s) ?? 0]),
  ) as Record<TRegressionAlertStatus, number>;
  const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
  return { days, total, byStatus, falseAlertShare: total ? byStatus.invalid / total : null };
}
