import { acknowledgeRegressionAlert, getRegressionAlert, listRegressionAlerts } from '@clusterscope/db';
import type { TRegressionAlert } from '@clusterscope/schema';
import type { TDeps } from './deps';
import { assertCan, type TCaller } from './caller';
import { boundClusterOf } from './access';
import { notFound } from './errors';

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
  const by = caller.kind === 'user' ? `user:${caller.userId}` : `token:${caller.tokenId}`;
  const a = await acknowledgeRegressionAlert(deps.db, caller.orgId, id, by, boundClusterOf(caller));
  if (!a) throw notFound('alert');
  return toRegressionAlert(a);
}
