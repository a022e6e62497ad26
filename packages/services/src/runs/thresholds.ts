import { detectChangePoints, directionOf, evaluateThreshold, getMetricInfo } from '@clusterscope/bench';
import * as repo from '@clusterscope/db';
import {
  ZThresholdInput,
  type TThreshold,
  type TThresholdInput,
  type TThresholdTest,
  type TWorkloadHistory,
} from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import { audit } from '../tenancy/audit';
import { assertCan, type TCaller } from '../tenancy/caller';
import { getRunValues, judgeRunsByDefault, loadRunData, parseEvaluation } from './compare';
import { evaluateFinishedRun } from './evaluation';
import { refreshRunEnvironment } from './environment';
import { getAlertPrecision, toRegressionAlert } from './regression-alerts';
import { notFound } from '../core/errors';
import { boundClusterOf, loadRuns, toRunBrief, type TRunRow } from '../tenancy/access';
import { logOf } from '../core/logger';

type TThresholdRow = Awaited<ReturnType<typeof repo.listThresholds>>[number];

export function toThreshold(t: TThresholdRow): TThreshold {
  return { ...t, test: t.test as TThresholdTest };
}

export async function listThresholds(deps: TDeps, caller: TCaller, workloadId?: string) {
  assertCan(caller, { workload: ['read'] });
  return (await repo.listThresholds(deps.db, caller.orgId, workloadId)).map(toThreshold);
}

/** Creates or replaces the threshold of (workload, metric). */
export async function saveThreshold(deps: TDeps, caller: TCaller, input: TThresholdInput) {
  assertCan(caller, { workload: ['write'] });
  const t = ZThresholdInput.parse(input);
  const w = await repo.getWorkload(deps.db, caller.orgId, t.workloadId);
  if (!w) throw notFound('workload');
  const row = await repo.upsertThreshold(deps.db, caller.orgId, { ...t, workloadId: w.id });
  await audit(deps, caller, {
    action: 'threshold.save',
    targetId: row.id,
    data: t,
  });
  return toThreshold(row);
}

export async function deleteThreshold(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { workload: ['write'] });
  const t = await repo.getThreshold(deps.db, caller.orgId, id);
  if (!t || !(await repo.deleteThreshold(deps.db, caller.orgId, id))) throw notFound('threshold');
  await audit(deps, caller, {
    action: 'threshold.delete',
    targetId: id,
    data: { workloadId: t.workloadId, metric: t.metric },
  });
  return { id, deleted: true };
}

/** Per-run metric values, the same ones the verdicts use (compare.ts getRunValues). */
async function getMetricValues(deps: TDeps, orgId: string, runs: readonly TRunRow[]) {
  const data = await loadRunData(deps, orgId, runs);
  return new Map(runs.map((r) => [r.id, getRunValues(data.get(r.id)!)]));
}

/**
 * The work done when a run finishes (called by the runs service's onRunFinished hook): environment
 * health, then the run's one evaluation (verdicts, thresholds, alerts, confirmation). Never throws;
 * failures are logged.
 */
export async function handleRunFinished(deps: TDeps, orgId: string, runId: string) {
  try {
    const env = await refreshRunEnvironment(deps, orgId, runId);
    const evaluation = await evaluateFinishedRun(deps, orgId, runId);
    return { envHealthy: env.healthy, evaluation };
  } catch (err) {
    logOf(deps).error({ runId, err: String(err) }, 'run finish evaluation failed');
    return null;
  }
}

/** A workload's metric history (x = run time) with change points, threshold bands and alerts. */
export async function getWorkloadHistory(
  deps: TDeps,
  caller: TCaller,
  workloadId: string,
  limit = 200,
): Promise<TWorkloadHistory> {
  assertCan(caller, { workload: ['read'], run: ['read'] });
  const workload = await repo.getWorkload(deps.db, caller.orgId, workloadId);
  if (!workload) throw notFound('workload');
  const id = workload.id;
  const [runs, thresholds, alerts, precision] = await Promise.all([
    repo.findWorkloadHistory(deps.db, caller.orgId, id, limit, boundClusterOf(caller)),
    repo.listThresholds(deps.db, caller.orgId, id),
    repo.listRegressionAlerts(deps.db, caller.orgId, {
      workloadId: id,
      limit: 100,
      clusterId: boundClusterOf(caller),
    }),
    getAlertPrecision(deps, caller, id),
  ]);
  const values = await getMetricValues(deps, caller.orgId, runs);
  const bounds = new Map(
    runs.map((r) => [
      r.id,
      new Map((parseEvaluation(r)?.verdicts ?? []).map((v) => [v.metric, v.bound ?? null])),
    ]),
  );
  const names = [...new Set(runs.flatMap((r) => [...(values.get(r.id)?.keys() ?? [])]))].sort();
  const metrics = names.map((metric) => {
    const points = runs.flatMap((r) => {
      const v = values.get(r.id)?.get(metric);
      return v
        ? [
            {
              runId: r.id,
              t: r.startedAt.getTime(),
              value: v.value,
              sha: r.gitSha,
              branch: r.gitBranch,
              envHealthy: r.envHealthy,
              bound: bounds.get(r.id)?.get(metric) ?? null,
            },
          ]
        : [];
    });
    const first = runs.map((r) => values.get(r.id)?.get(metric)).find(Boolean);
    const threshold = thresholds.find((t) => t.metric === metric) ?? null;
    let band: { lo: number; hi: number; mean: number; branch: string; runs: number } | null = null;
    if (threshold) {
      const window = points
        .filter(
          (p) =>
            p.branch === threshold.branch &&
            p.envHealthy !== false &&
            (!workload.baselineFrom || p.t >= workload.baselineFrom.getTime()),
        )
        .slice(-threshold.windowSize)
        .map((p) => p.value);
      const r = evaluateThreshold(
        { test: threshold.test as TThresholdTest, limit: threshold.limit, minSamples: threshold.minSamples },
        window,
        window.at(-1) ?? NaN,
        first?.direction ?? directionOf(metric),
      );
      // A window too short for the test gives no finite boundary: no band then.
      if (r.boundary && r.baseline_mean !== null && Number.isFinite(r.boundary.lo + r.boundary.hi))
        band = { ...r.boundary, mean: r.baseline_mean, branch: threshold.branch, runs: window.length };
    }
    const cps = detectChangePoints(points.map((p) => p.value));
    return {
      metric,
      unit: first?.unit ?? getMetricInfo(metric)?.unit ?? '',
      direction: first?.direction ?? directionOf(metric),
      label: getMetricInfo(metric)?.label ?? metric,
      points,
      changePoints: cps.map((i) => ({ index: i, runId: points[i].runId, t: points[i].t })),
      threshold: threshold ? toThreshold(threshold) : null,
      band,
    };
  });
  return {
    workload: {
      id: workload.id,
      name: workload.name,
      tool: workload.tool,
      description: workload.description,
    },
    runs: runs.map(toRunBrief),
    metrics,
    thresholds: thresholds.map(toThreshold),
    alerts: await withRunVerdicts(deps, caller, alerts.map(toRegressionAlert), runs),
    precision,
    baselineFrom: workload.baselineFrom,
  };
}

/** Alerts with their run's verdict (against the same default baseline the run page and list show). */
async function withRunVerdicts(
  deps: TDeps,
  caller: TCaller,
  alerts: ReturnType<typeof toRegressionAlert>[],
  known: readonly TRunRow[],
) {
  const byId = new Map(known.map((r) => [r.id, r]));
  const missing = [...new Set(alerts.map((a) => a.runId))].filter((id) => !byId.has(id));
  if (missing.length) for (const r of await loadRuns(deps, caller, missing)) byId.set(r.id, r);
  const rows = [...new Set(alerts.slice(0, 50).map((a) => a.runId))].flatMap((id) => byId.get(id) ?? []);
  const judged = await judgeRunsByDefault(deps, caller, rows);
  return alerts.map((a) => ({ ...a, runVerdict: judged.get(a.runId) ?? null }));
}
