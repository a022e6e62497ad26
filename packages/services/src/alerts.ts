import { acknowledgeAlert, getAlert, listAlerts } from '@clusterscope/db';
import type { TAlert } from '@clusterscope/schema';
import type { TDeps } from './deps';
import { assertCan, type TCaller } from './caller';
import { boundClusterOf } from './access';
import { notFound } from './errors';

type TAlertRow = NonNullable<Awaited<ReturnType<typeof getAlert>>>;

export function toAlert(a: TAlertRow): TAlert {
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

export async function findAlerts(
  deps: TDeps,
  caller: TCaller,
  q: { workloadId?: string; runId?: string; unacknowledged?: boolean; limit?: number } = {},
) {
  assertCan(caller, { alert: ['read'] });
  return (
    await listAlerts(deps.db, caller.orgId, {
      ...q,
      limit: q.limit ?? 100,
      clusterId: boundClusterOf(caller),
    })
  ).map(toAlert);
}

/** Acknowledges an alert (idempotent: the first acknowledgement is kept). */
export async function ackAlert(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { alert: ['ack'] });
  const by = caller.kind === 'user' ? `user:${caller.userId}` : `token:${caller.tokenId}`;
  const a = await acknowledgeAlert(deps.db, caller.orgId, id, by, boundClusterOf(caller));
  if (!a) throw notFound('alert');
  return toAlert(a);
}
