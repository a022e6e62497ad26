/**
 * The words of a metric verdict, defined once: what a metric measures (its kind), which test judged it and
 * how strong the evidence is. The run page, compare page, runs list, workload history, CLI and REST answer
 * all use these, so a verdict reads the same everywhere. Also the one value formatter and short-id rule.
 */
import { z } from 'zod';

/**
 * What a metric measures. Rates, latencies and error rates measure performance; counts grow with the run's
 * length, set-up times measure connecting, durations the run itself, so those are shown and not judged.
 */
export const METRIC_KINDS = ['rate', 'latency', 'error_rate', 'count', 'setup', 'duration'] as const;
export const ZMetricKind = z.enum(METRIC_KINDS);
export type TMetricKind = z.infer<typeof ZMetricKind>;

/** The kinds that can make a verdict unless a workload (or `--verdict-metrics`) names others. */
export const DEFAULT_VERDICT_KINDS: readonly TMetricKind[] = ['rate', 'latency', 'error_rate'];

/** Verdict metrics as a workload stores them: metric names (`tps`, `read.lat_p95_ms`) and kinds (`latency`). */
export const ZVerdictMetrics = z
  .array(
    z
      .string()
      .trim()
      .regex(
        /^[A-Za-z0-9_.:-]{1,128}$/,
        'must be a metric name or a kind (rate, latency, error_rate, count, setup, duration)',
      ),
  )
  .max(64);

/** `tps,latency` as a query parameter (REST `verdictMetrics`, CLI `--verdict-metrics`). */
export const ZVerdictMetricsParam = z
  .string()
  .max(2000)
  .transform((s) => [
    ...new Set(
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    ),
  ])
  .pipe(ZVerdictMetrics);

/** Baseline runs a one-value-per-run metric needs before its history test can judge it. */
export const HISTORY_MIN_RUNS = 5;

/**
 * The test behind a metric verdict: Welch's t or a block bootstrap on interval samples, the history test
 * (one value per run against the baseline runs' values), or none (one value against one, indicative).
 */
export const ZVerdictTest = z.enum(['welch', 'bootstrap', 'history', 'threshold', 'none']);
export type TVerdictTest = z.infer<typeof ZVerdictTest>;

/**
 * How strong the evidence of a change is: strong/moderate/weak/none from the test's p-value; indicative
 * when no test could run; not_judged when the metric's kind makes no verdict.
 */
export const ZEvidence = z.enum(['strong', 'moderate', 'weak', 'none', 'indicative', 'not_judged']);
export type TEvidence = z.infer<typeof ZEvidence>;

export const METRIC_KIND_WORDS: Record<TMetricKind, string> = {
  rate: 'rate',
  latency: 'latency',
  error_rate: 'error rate',
  count: 'count',
  setup: 'set-up time',
  duration: 'duration',
};

/** Short name of each test (table cells, CLI column); TEST_WORDS says what it is. */
export const TEST_BADGE: Record<TVerdictTest, string> = {
  welch: 'Welch t',
  bootstrap: 'bootstrap',
  history: 'history',
  threshold: 'threshold',
  none: 'no test',
};

export const TEST_WORDS: Record<TVerdictTest, string> = {
  welch: "Welch's t-test on interval samples",
  bootstrap: 'block bootstrap on interval samples',
  history: `history test against the baseline runs' values`,
  threshold: `the workload's threshold for the metric (its test and limit over the baseline runs' values)`,
  none: 'no test',
};

/** Badge text of each evidence level. */
export const EVIDENCE_WORDS: Record<TEvidence, string> = {
  strong: 'strong evidence',
  moderate: 'moderate evidence',
  weak: 'weak evidence',
  none: 'no evidence of a change',
  indicative: 'indicative',
  not_judged: 'not judged',
};

/** What each evidence level means (tooltips and the rule). */
export const EVIDENCE_MEANING: Record<TEvidence, string> = {
  strong: 'p < 0.001',
  moderate: 'p < 0.01',
  weak: 'p < 0.05',
  none: 'p ≥ 0.05',
  indicative: `one value per run and fewer than ${HISTORY_MIN_RUNS} baseline runs: no test, shown only`,
  not_judged: 'counts, set-up times and durations are shown, not judged',
};

/** Evidence level of a p-value (null: no test ran). */
export function getEvidence(p: number | null): TEvidence {
  if (p === null || !Number.isFinite(p)) return 'indicative';
  if (p < 0.001) return 'strong';
  if (p < 0.01) return 'moderate';
  if (p < 0.05) return 'weak';
  return 'none';
}

/** "Welch's t-test on interval samples: strong evidence (p = 0.0004)"; "indicative: no test". */
export function describeEvidence(v: {
  test: TVerdictTest;
  evidence: TEvidence;
  p_value: number | null;
}): string {
  const p = v.p_value === null ? '' : ` (p = ${formatP(v.p_value)})`;
  if (v.evidence === 'indicative') return `${EVIDENCE_WORDS.indicative}: ${EVIDENCE_MEANING.indicative}`;
  if (v.evidence === 'not_judged')
    return `${EVIDENCE_WORDS.not_judged}: ${EVIDENCE_MEANING.not_judged}${v.test === 'none' ? '' : `; ${TEST_WORDS[v.test]}${p}`}`;
  return `${TEST_WORDS[v.test]}: ${EVIDENCE_WORDS[v.evidence]}${p}`;
}

/**
 * One line naming, for each metric that made (or could have made) the run verdict, its test and evidence:
 * "tps: Welch t, strong evidence; lat_p95_ms: Welch t, no evidence of a change". Metrics that were not
 * judged are counted at the end. The runs list and workload history show it beside the verdict.
 */
export function summarizeEvidence(
  verdicts: readonly { metric: string; test: TVerdictTest; evidence: TEvidence; judged: boolean }[],
): string {
  const judged = verdicts.filter((v) => v.judged);
  const rest = verdicts.length - judged.length;
  const parts = judged.map((v) => `${v.metric}: ${TEST_BADGE[v.test]}, ${EVIDENCE_WORDS[v.evidence]}`);
  if (rest) parts.push(`${rest} metric${rest === 1 ? '' : 's'} shown, not judged`);
  return parts.join('; ');
}

/** 0.58 / 0.012 / 0.0004 / < 0.0001. */
export function formatP(p: number): string {
  if (p < 0.0001) return '< 0.0001';
  return String(Number(p.toPrecision(2)));
}

/** The one rounding of a metric value on every page, the CLI and alert text: 1,249 / 12.3 / 0.45 / 0.0123. */
export function formatValue(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a >= 10) return v.toFixed(1);
  if (a >= 0.1) return v.toFixed(2);
  return a === 0 ? '0' : String(Number(v.toPrecision(3)));
}

/** The one short form of an id (cuid ids differ in their last characters): its last 8. */
export function shortId(id: string): string {
  return id.slice(-8);
}
