/**
 * The one verdict story (pure): what a baseline is called, how a run-level verdict follows from its metric
 * verdicts, the rule text shown wherever a verdict appears, and the human alert text. The run page, runs
 * list, compare page, threshold alerts, CLI and REST compare all go through these.
 */
import {
  formatValue,
  MIN_EFFECT_PCT,
  shortId,
  type TMetricVerdict,
  type TRunVerdict,
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
        ? `no judged metric changed significantly by ${MIN_EFFECT_PCT}% or more`
        : 'no metric could be judged (only counts, set-up times or indicative values)',
  };
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
  test: TThresholdTest;
  limit: number;
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
  return `${a.metric} ${formatAmount(a.value)}${unit} ${how}${unit} (${window}; ${describeLimit(a.test, a.limit)})`;
}
