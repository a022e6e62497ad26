import { describeNoise } from '@clusterscope/bench';
import {
  acknowledgeRegressionAlert,
  countNotifiedAlerts,
  countRegressionAlertsByConfirmation,
  countRegressionAlertsByStatus,
  findBaselineRuns,
  getWorkload,
  getRegressionAlert,
  listRegressionAlerts,
  setWorkloadBaselineFrom,
  triageRegressionAlert,
} from '@clusterscope/db';
import {
  ALPHA,
  MIN_EFFECT_PCT,
  getConfirmFloorPct,
  ZConfirmationState,
  ZRegressionAlertStatus,
  ZRegressionAlertTriage,
  type TAlertPrecision,
  type TRegressionAlert,
  type TRegressionAlertStatus,
  type TRegressionAlertTriage,
} from '@clusterscope/schema';
import { audit } from '../tenancy/audit';
import type { TDeps } from '../core/deps';
import { assertCan, type TCaller } from '../tenancy/caller';
import { boundClusterOf } from '../tenancy/access';
import { notFound } from '../core/errors';
import { getDefaultBaseline, getRunValues, loadRunData, pickKeyMetrics } from './compare';

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
    confirmation: ZConfirmationState.catch('none').parse(a.confirmation),
    confirmNote: a.confirmNote,
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

/** Baseline runs the noise of a workload is measured over. */
const NOISE_RUNS = 20;

/**
 * A workload's precision over the last `days`: its alerts by triage status and by confirmation, the share
 * of notified alerts (confirmed, or without confirmation) triaged invalid, and its noise: the spread of
 * the headline metric over its latest baseline runs and the smallest change a verdict detects.
 */
export async function getAlertPrecision(
  deps: TDeps,
  caller: TCaller,
  workloadId: string,
  days = PRECISION_DAYS,
  now = new Date(),
): Promise<TAlertPrecision> {
  const since = new Date(now.getTime() - days * 86_400_000);
  const bound = boundClusterOf(caller);
  const [counts, confirmations, notified, noise] = await Promise.all([
    countRegressionAlertsByStatus(deps.db, caller.orgId, workloadId, since, bound),
    countRegressionAlertsByConfirmation(deps.db, caller.orgId, workloadId, since, bound),
    countNotifiedAlerts(deps.db, caller.orgId, workloadId, since, bound),
    getWorkloadNoise(deps, caller, workloadId, now),
  ]);
  const byStatus = Object.fromEntries(
    ZRegressionAlertStatus.options.map((s) => [s, counts.get(s) ?? 0]),
  ) as Record<TRegressionAlertStatus, number>;
  const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
  const confirmed = confirmations.get('confirmed') ?? 0;
  const notConfirmed = confirmations.get('not_confirmed') ?? 0;
  return {
    days,
    total,
    byStatus,
    falseAlertShare: notified.all ? notified.invalid / notified.all : null,
    suspected: (confirmations.get('suspected') ?? 0) + confirmed + notConfirmed,
    confirmed,
    notConfirmed,
    noise,
  };
}

async function getWorkloadNoise(deps: TDeps, caller: TCaller, workloadId: string, now: Date) {
  const w = await getWorkload(deps.db, caller.orgId, workloadId);
  if (!w) return null;
  const def = await getDefaultBaseline(deps, caller.orgId, { workloadId, workload: w });
  const runs = await findBaselineRuns(deps.db, caller.orgId, {
    workloadId,
    tool: w.tool,
    toolWorkload: '',
    branch: def.branch,
    before: now,
    after: def.after,
    limit: NOISE_RUNS,
    clusterId: boundClusterOf(caller),
  });
  if (runs.length < 3) return null;
  const data = await loadRunData(deps, caller.orgId, runs);
  const values = runs.map((r) => getRunValues(data.get(r.id)!));
  const [metric] = pickKeyMetrics(new Set(values.flatMap((v) => [...v.keys()])));
  if (!metric) return null;
  const xs = values.flatMap((v) => v.get(metric)?.value ?? []);
  const direction = values.find((v) => v.has(metric))!.get(metric)!.direction;
  const t = def.thresholds.find((x) => x.metric === metric);
  // A confirmed regression needs the confirmation runs' mean past its floor (CONFIRM_RULE).
  const n = describeNoise(xs, {
    alpha: ALPHA,
    minEffectPct: w.confirmRuns > 0 ? getConfirmFloorPct(w.confirmRuns) : MIN_EFFECT_PCT,
    direction,
    threshold: t ? { test: t.test, limit: t.limit, minSamples: t.minSamples } : null,
  });
  return n ? { metric, ...n } : null;
}
