/**
 * The one verdict story (pure): what a baseline is called, how a run-level verdict follows from its metric
 * verdicts, the rule text shown wherever a verdict appears, and the human alert text. The run page, runs
 * list, compare page, threshold alerts, CLI and REST compare all go through these.
 */
import { evaluateThreshold } from '@clusterscope/bench';
import {
  formatValue,
  MIN_EFFECT_PCT,
  shortId,
  type TMetricVerdict,
  type TRunVerdict,
  type TThreshold,
  type TThresholdTest,
} from '@clusterscope/schema';

/** A baseline: one run, or the latest `window` succeeded healthy runs of the same workload on `branch`. */
export type TBaselineSpec =
  | { kind: 'run'; runId: string }
  | { kind: 'branch'; branch: string; window: number };

/**
 * `main`, `main:5` (branch, last 5 runs; git refs cannot contain ':') or anything else (a run id, tried
 * first by the caller). Returns the branch window, or null for a plain ref that may be a run id.
 */
export function parseBranchRef(ref: string): { branch: string; window: number | null } {
  const m = /^(.+):(\d{1,4})$/.exec(ref);
  if (m && Number(m[2]) >= 1) return { branch: m[1], window: Number(m[2]) };
  return { branch: ref, window: null };
}

/** "main (last 3 runs)", "main (last run)", "run 1a2b3c4d". `found` = runs actually in the window. */
export function nameBaseline(spec: TBaselineSpec, found?: number): string {
  if (spec.kind === 'run') return `run ${shortId(spec.runId)}`;
  const n = found === undefined ? spec.window : Math.min(found, spec.window);
  if (n === 0) return `${spec.branch} (no earlier runs)`;
  return `${spec.branch} (last ${n === 1 ? 'run' : `${n} runs`})`;
}

export type TRunIdentity = { tool: string; toolWorkload: string; workloadId: string | null };

/** Why two runs cannot be compared (different tool or workload), or null. */
export function findMismatch(run: TRunIdentity, base: readonly TRunIdentity[]): string | null {
  for (const b of base) {
    if (b.tool !== run.tool) return `different tools (${b.tool} vs ${run.tool})`;
    if (b.workloadId && run.workloadId && b.workloadId !== run.workloadId) return 'different workloads';
    if (b.toolWorkload !== run.toolWorkload)
      return `different tool workloads (${b.toolWorkload || '—'} vs ${run.toolWorkload || '—'})`;
  }
  return null;
}

const pct = (v: number) => `${v > 0 ? '+' : ''}${v.toFixed(1)}%`;

/** Run-level verdict from its metric verdicts, with a one-line reason. */
export function decideRunVerdict(a: {
  verdicts: readonly (Pick<TMetricVerdict, 'metric' | 'verdict' | 'change_pct'> &
    Partial<Pick<TMetricVerdict, 'judged'>>)[];
  envHealthy: boolean | null;
  baselineRuns: number;
  mismatch?: string | null;
  minEffectPct?: number;
}): { verdict: TRunVerdict; regression: boolean; reason: string } {
  if (a.mismatch)
    return { verdict: 'incomparable', regression: false, reason: `not comparable: ${a.mismatch}` };
  if (a.envHealthy === false)
    return {
      verdict: 'unhealthy_env',
      regression: false,
      reason: 'environment unhealthy during the run: not judged',
    };
  if (a.baselineRuns === 0)
    return { verdict: 'no_baseline', regression: false, reason: 'no baseline run to compare with' };
  const list = (kind: string) =>
    a.verdicts
      .filter((v) => v.verdict === kind && v.judged !== false)
      .map((v) => `${v.metric}${v.change_pct === null ? '' : ` ${pct(v.change_pct)}`}`)
      .join(', ');
  const reg = list('regression');
  if (reg) return { verdict: 'regression', regression: true, reason: `regressed: ${reg}` };
  const imp = list('improvement');
  if (imp) return { verdict: 'improvement', regression: false, reason: `improved: ${imp}` };
  return {
    verdict: 'noise',
    regression: false,
    reason: !a.verdicts.length
      ? 'no metric in common with the baseline'
      : a.verdicts.some((v) => v.judged !== false)
        ? `no judged metric changed significantly by ${a.minEffectPct ?? MIN_EFFECT_PCT}% or more`
        : 'no metric could be judged (only counts, set-up times or indicative values)',
  };
}

/**
 * A workload's thresholds decide the verdicts of their metrics (as Bencher's): each threshold's test and
 * limit over the metric's values in the newest `windowSize` baseline runs. A crossing is a regression; a
 * value within the boundary is no regression (an improvement found by the default test stays one). A
 * threshold whose window has fewer than `minSamples` runs leaves the default test's verdict, and says so.
 * `history` holds each baseline run's values, newest first.
 */
export function applyThresholds(
  verdicts: readonly TMetricVerdict[],
  thresholds: readonly Pick<TThreshold, 'metric' | 'test' | 'limit' | 'minSamples' | 'windowSize'>[],
  history: readonly ReadonlyMap<string, { value: number }>[],
): TMetricVerdict[] {
  return verdicts.map((v) => {
    const t = thresholds.find((x) => x.metric === v.metric);
    if (!t) return v;
    const xs = history
      .slice(0, t.windowSize)
      .map((h) => h.get(v.metric)?.value)
      .filter((x): x is number => x !== undefined && Number.isFinite(x));
    const r = evaluateThreshold(
      { test: t.test, limit: t.limit, minSamples: t.minSamples },
      xs,
      v.value,
      v.direction,
    );
    if (r.status === 'insufficient' || !r.boundary || r.baseline_mean === null)
      return { ...v, reason: `${v.reason}; threshold not applied: ${r.reason}` };
    const bound = v.direction === 'higher' ? r.boundary.lo : r.boundary.hi;
    const verdict = r.crossed ? 'regression' : v.verdict === 'regression' ? 'noise' : v.verdict;
    const change =
      r.baseline_mean === 0 ? null : ((v.value - r.baseline_mean) / Math.abs(r.baseline_mean)) * 100;
    return {
      ...v,
      baseline: r.baseline_mean,
      change_pct: change,
      test: 'threshold',
      judged: true,
      verdict,
      n_baseline: xs.length,
      reason: `threshold over ${xs.length} runs: ${r.reason}`,
      bound,
    };
  });
}

/** Alert text rounds like every page (formatValue of @clusterscope/schema). */
export const formatAmount = formatValue;

function describeLimit(test: TThresholdTest, limit: number): string {
  switch (test) {
    case 'percentage':
      return `limit ${limit} %`;
    case 'z_score':
      return `limit ${limit} σ`;
    case 't_test':
      return limit < 1 ? `t-test at ${limit * 100} %` : `t-test, t ${limit}`;
    case 'iqr':
      return `limit ${limit} × IQR`;
  }
}

/**
 * "tps 1,249 is 6.1 % below the baseline 1,329 (main, last 5 runs; limit 10 %)".
 * `baseline` is the window mean; `runs` the number of runs in the window.
 */
export function formatAlertText(a: {
  metric: string;
  unit?: string;
  value: number;
  baseline: number;
  branch: string;
  runs: number;
  /** The threshold that judged it; without one, `judgedBy` names the test ("Welch t, strong evidence"). */
  test?: TThresholdTest;
  limit?: number;
  judgedBy?: string;
}): string {
  const unit = a.unit && a.unit !== 'count' ? ` ${a.unit}` : '';
  const diff = a.baseline === 0 ? null : ((a.value - a.baseline) / Math.abs(a.baseline)) * 100;
  const how =
    diff === null
      ? `vs the baseline ${formatAmount(a.baseline)}`
      : diff === 0
        ? `equals the baseline ${formatAmount(a.baseline)}`
        : `is ${Math.abs(diff).toFixed(1)} % ${diff < 0 ? 'below' : 'above'} the baseline ${formatAmount(a.baseline)}`;
  const window = `${a.branch}, last ${a.runs === 1 ? 'run' : `${a.runs} runs`}`;
  const rule = a.test && a.limit !== undefined ? describeLimit(a.test, a.limit) : (a.judgedBy ?? '');
  return `${a.metric} ${formatAmount(a.value)}${unit} ${how}${unit} (${window}${rule ? `; ${rule}` : ''})`;
}
