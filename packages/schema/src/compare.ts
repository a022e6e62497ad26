import { z } from 'zod';
import { ZDayOrTimestamp, ZDirection, ZRunStatus } from './common';
import { ZIntervalSample, ZMetric, ZThresholdTest } from './bench';
import { EVIDENCE_MEANING, HISTORY_MIN_RUNS, ZEvidence, ZMetricKind, ZVerdictTest } from './verdict-words';

export const ZVerdict = z.enum(['improvement', 'regression', 'noise']);
export type TVerdict = z.infer<typeof ZVerdict>;

/** Default branch window when a workload has no threshold: main, last 3 runs. */
export const DEFAULT_BASELINE_BRANCH = 'main';
export const DEFAULT_BASELINE_WINDOW = 3;
/**
 * The baseline lane of runs Clusterscope started on an agent (the dashboard's Run, the API's start, a
 * schedule, a cluster change) without a git branch: each is compared with the earlier such runs of its
 * workload on the same cluster. As a baseline ref (`dashboard`, `dashboard:5`) it names this lane, not a
 * git branch of that name.
 */
export const DASHBOARD_LANE = 'dashboard';
/** The statistics every verdict uses (run page, list, compare, CLI, REST). */
export const ALPHA = 0.05;
export const MIN_EFFECT_PCT = 9;
/**
 * When confirmation runs follow, every run of the chain is judged with a third of the minimum effect: the
 * minimum effect guards one run against the drift between identical runs, and here no one is told until
 * the confirmation runs' mean has passed a floor of its own, so a lower floor only costs re-runs.
 */
export const SCREEN_EFFECT_PCT = MIN_EFFECT_PCT / 3;
/** The floor of the mean change of n confirmation runs: the mean of n runs drifts √n times less than one. */
export const getConfirmFloorPct = (n: number) => MIN_EFFECT_PCT / Math.sqrt(Math.max(1, n));

/** The rule behind every verdict (the short form; each part is one sentence of the compare page's details). */
export const VERDICT_RULE_PARTS = [
  `Only rates, latencies and error rates make a verdict by default; counts, set-up times and durations are shown, not judged (a workload or --verdict-metrics may choose other metrics).`,
  `A metric with interval samples is judged by one test on them (Welch's t on block means, or a block bootstrap when they are not normal), which gives its p-value and 95% CI; against a baseline of several runs its change must also lie outside the spread of those runs' values (the history test), since identical runs differ from run to run by more than their samples show.`,
  `A metric with one value per run is judged by the history test (a t prediction interval of the baseline runs' values) once the baseline has ${HISTORY_MIN_RUNS} or more runs; with fewer it is indicative (a change of ${MIN_EFFECT_PCT}% or more, untested), shown and never failing CI unless the workload names it.`,
  `A judged metric regresses or improves when p < ${ALPHA} and its change between the runs' stored values is at least ${MIN_EFFECT_PCT}%.`,
  `Evidence: strong (${EVIDENCE_MEANING.strong}), moderate (${EVIDENCE_MEANING.moderate}), weak (${EVIDENCE_MEANING.weak}), none (${EVIDENCE_MEANING.none}).`,
  `A run is a regression when any judged metric regressed, an improvement when any improved and none regressed, otherwise no change; runs with an unhealthy environment, without a baseline, or of another tool or workload get no verdict.`,
] as const;
export const VERDICT_RULE = VERDICT_RULE_PARTS.join(' ');

/** Verdict shown for a whole run against its baseline (incomparable: another tool or workload). */
export const ZRunVerdict = z.enum([
  'regression',
  'improvement',
  'noise',
  'unhealthy_env',
  'no_baseline',
  'incomparable',
]);
export type TRunVerdict = z.infer<typeof ZRunVerdict>;

/** Filters of the run list (kept in the page URL; the same for CSV/JSON export). */
export const ZRunFilter = z.object({
  cluster: z.string().max(128).optional(),
  workload: z.string().max(128).optional(),
  tool: z.string().max(64).optional(),
  branch: z.string().max(256).optional(),
  /** `key=value` or `key` (label present). */
  label: z.string().max(256).optional(),
  status: ZRunStatus.optional(),
  /** ISO date or date-time, inclusive. */
  from: ZDayOrTimestamp.optional(),
  to: ZDayOrTimestamp.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  /** Rows to skip (pagination of the run list). */
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type TRunFilter = z.input<typeof ZRunFilter>;

/** The run list's page facts: the total matching the filter, and runs of the page that look stuck. */
export const ZRunListMeta = z.object({
  total: z.number().int(),
  /** Runs "running" with no agent and no samples for longer than their expected duration. */
  stuck: z.array(z.object({ id: z.string(), expected_s: z.number() })),
});
export type TRunListMeta = z.infer<typeof ZRunListMeta>;

/** One metric of a run compared with its baseline (CI `--fail-on-regression` reads this). */
export const ZMetricVerdict = z.object({
  metric: z.string(),
  unit: z.string(),
  direction: ZDirection,
  /** The baseline runs' stored value (mean over the runs of a branch baseline). */
  baseline: z.number(),
  /** The run's stored value: the same number its run page shows. */
  value: z.number(),
  change_pct: z.number().nullable(),
  ci95: z.tuple([z.number(), z.number()]).nullable(),
  p_value: z.number().nullable(),
  /** The one test behind ci95 and p_value (none: one value against one, indicative). */
  test: ZVerdictTest,
  /** What the metric measures: only rates, latencies and error rates are judged by default. */
  kind: ZMetricKind,
  /** How strong the evidence is (see EVIDENCE_WORDS); indicative or not_judged when it cannot fail a run. */
  evidence: ZEvidence,
  /** Whether this metric's verdict counts for the run verdict and CI's exit code. */
  judged: z.boolean(),
  /** What the numbers say; it makes the run verdict only when `judged`. */
  verdict: ZVerdict,
  source: z.enum(['samples', 'summary']),
  /** Samples (or, for the history test, baseline runs) on each side. */
  n_baseline: z.number().int(),
  n_value: z.number().int(),
  reason: z.string(),
  /** The worse-side boundary of the workload's threshold the value was judged against (threshold test only). */
  bound: z.number().nullable().optional(),
});
export type TMetricVerdict = z.infer<typeof ZMetricVerdict>;

export const ZBaselineRef = z.object({
  kind: z.enum(['run', 'branch']),
  /** The run id or branch name asked for. */
  ref: z.string(),
  /** How the baseline is shown everywhere: "main (last 3 runs)", "run 1a2b3c4d". */
  name: z.string(),
  branch: z.string().nullable(),
  /** Branch window: how many latest runs are pooled (null for a run baseline). */
  window: z.number().int().nullable(),
  /** Runs whose samples form the baseline (pooled, newest first). */
  run_ids: z.array(z.string()),
  /** True for the dashboard lane (branch `dashboard`): branchless runs started by Clusterscope on this cluster. */
  lane: z.boolean().optional(),
  /** A run started by a cluster's build change is compared with the runs before that change. */
  change: z.object({ from: z.string(), to: z.string(), at: z.string() }).nullable().optional(),
});
export type TBaselineRef = z.infer<typeof ZBaselineRef>;

/**
 * A suspected regression waits for confirmation runs of the same workload on the same cluster before it
 * alerts or fails a check (CONFIRM_RULE). `none`: no confirmation was asked for (it alerts at once).
 */
export const ZConfirmationState = z.enum(['none', 'suspected', 'confirmed', 'not_confirmed']);
export type TConfirmationState = z.infer<typeof ZConfirmationState>;

export const CONFIRM_RULE = `A suspected regression is confirmed when the regressed metric regresses again in every confirmation run, judged by the same test against the same baseline, and its mean change over those runs is a regression of at least ${MIN_EFFECT_PCT}% / √n for n runs (${getConfirmFloorPct(2).toFixed(1)}% for two), since the mean of n runs drifts √n times less than one run. While confirmation runs follow, the suspect and each confirmation run are judged with a minimum effect of ${SCREEN_EFFECT_PCT}% instead of ${MIN_EFFECT_PCT}%. A confirmation run that failed or during which the cluster was unhealthy does not count.`;

export const CONFIRMATION_WORDS: Record<TConfirmationState, string> = {
  none: '',
  suspected: 'suspected, confirming',
  confirmed: 'confirmed',
  not_confirmed: 'not confirmed',
};

export const ZConfirmation = z.object({
  state: ZConfirmationState,
  /** Confirmation runs asked for. */
  wanted: z.number().int(),
  /** The metrics whose regression is being confirmed. */
  metrics: z.array(z.string()),
  runs: z.array(
    z.object({
      id: z.string(),
      /** Whether it counts for the decision (finished, succeeded, cluster healthy). */
      counted: z.boolean(),
      /** Whether every regressed metric regressed again in it. */
      regressed: z.boolean(),
      /** What it showed, or why it does not count. */
      reason: z.string(),
    }),
  ),
  rule: z.string(),
  /** One sentence: what was decided and why. */
  note: z.string(),
});
export type TConfirmation = z.infer<typeof ZConfirmation>;

export const ZRunComparison = z.object({
  run_id: z.string(),
  baseline: ZBaselineRef,
  verdicts: z.array(ZMetricVerdict),
  /** True when any metric regressed and the environment was healthy. */
  regression: z.boolean(),
  envHealthy: z.boolean().nullable(),
  env_reasons: z.array(z.string()),
  verdict: ZRunVerdict,
  /** One line: which metrics regressed/improved, or why there is no verdict. */
  reason: z.string(),
  /** The verdict rule (shown as a tooltip wherever a verdict appears). */
  rule: z.string(),
  /** Set when the runs cannot be compared (different tool or workload). */
  warning: z.string().nullable(),
  /** Set when the baseline ran on another kind of machine (describeMachineMismatch); the verdict stands. */
  machine_warning: z.string().nullable(),
  /** A suspected regression's confirmation (null: the run is no regression, or was judged live). */
  confirmation: ZConfirmation.nullable(),
  /** The suspected run this run confirms (null: not a confirmation run). */
  confirms: z.string().nullable(),
});
export type TRunComparison = z.infer<typeof ZRunComparison>;

export const ZRunBrief = z.object({
  id: z.string(),
  tool: z.string(),
  toolWorkload: z.string(),
  workloadId: z.string().nullable(),
  workloadName: z.string().nullable(),
  clusterId: z.string().nullable(),
  clusterName: z.string().nullable(),
  gitBranch: z.string().nullable(),
  gitSha: z.string().nullable(),
  labels: z.record(z.string(), z.string()),
  status: ZRunStatus,
  envHealthy: z.boolean().nullable(),
  startedAt: z.date(),
  finishedAt: z.date().nullable(),
});
export type TRunBrief = z.infer<typeof ZRunBrief>;

/** A run's verdict against the comparison's baseline. */
export const ZRunJudgement = z.object({
  run_id: z.string(),
  verdict: ZRunVerdict,
  reason: z.string(),
  /** Which test judged each metric and how strong the evidence is (summarizeEvidence). */
  evidence: z.string(),
  warning: z.string().nullable(),
  /** Set when the baseline ran on another kind of machine than this run. */
  machine_warning: z.string().nullable(),
});
export type TRunJudgement = z.infer<typeof ZRunJudgement>;

/**
 * Multi-run comparison: the baseline is the first run, or (with `baseline`) a branch window of the first
 * run, whose runs come first in `runs` (`baseline.run_ids`).
 */
export const ZComparison = z.object({
  runs: z.array(ZRunBrief),
  baseline: ZBaselineRef,
  /** One per compared (non-baseline) run. */
  judgements: z.array(ZRunJudgement),
  rule: z.string(),
  metrics: z.array(
    z.object({
      metric: z.string(),
      unit: z.string(),
      direction: ZDirection,
      baseline: z.number(),
      /** One entry per compared run, in the order of `judgements`. */
      deltas: z.array(ZMetricVerdict.extend({ run_id: z.string() })),
    }),
  ),
});
export type TComparison = z.infer<typeof ZComparison>;

export const ZThresholdInput = z.object({
  workloadId: z.string().min(1).max(64),
  metric: z.string().trim().min(1).max(128),
  test: ZThresholdTest.default('percentage'),
  limit: z.number().positive().max(1e9).default(10),
  minSamples: z.number().int().min(1).max(1000).default(5),
  windowSize: z.number().int().min(1).max(1000).default(20),
  branch: z.string().trim().min(1).max(256).default('main'),
});
export type TThresholdInput = z.input<typeof ZThresholdInput>;

export const ZThreshold = z.object({
  id: z.string(),
  workloadId: z.string(),
  metric: z.string(),
  test: ZThresholdTest,
  limit: z.number(),
  minSamples: z.number().int(),
  windowSize: z.number().int(),
  branch: z.string(),
  createdAt: z.date(),
});
export type TThreshold = z.infer<typeof ZThreshold>;

/** Triage of a regression alert: invalid = a false positive, expected = an accepted change (new baseline). */
export const ZRegressionAlertStatus = z.enum([
  'untriaged',
  'acknowledged',
  'investigating',
  'fixed',
  'invalid',
  'expected',
]);
export type TRegressionAlertStatus = z.infer<typeof ZRegressionAlertStatus>;

export const ZRegressionAlert = z.object({
  id: z.string(),
  runId: z.string(),
  thresholdId: z.string().nullable(),
  workloadId: z.string().nullable(),
  metric: z.string(),
  value: z.number(),
  baseline: z.number().nullable(),
  message: z.string(),
  createdAt: z.date(),
  acknowledgedAt: z.date().nullable(),
  acknowledgedBy: z.string().nullable(),
  status: ZRegressionAlertStatus,
  triagedAt: z.date().nullable(),
  triagedBy: z.string().nullable(),
  triageNote: z.string(),
  issueUrl: z.string().nullable(),
  gitBranch: z.string().nullable(),
  gitSha: z.string().nullable(),
  /** Only a `confirmed` (or `none`: no confirmation asked) alert notifies anyone. */
  confirmation: ZConfirmationState,
  confirmNote: z.string(),
});
export type TRegressionAlert = z.infer<typeof ZRegressionAlert>;

export const ZRegressionAlertTriage = z.object({
  id: z.string().min(1).max(64),
  status: ZRegressionAlertStatus,
  note: z.string().max(2000).optional(),
  /** A link to the issue tracking it (http/https only: it is shown as a link). */
  issueUrl: z
    .url({ protocol: /^https?$/, error: 'issueUrl: an http(s) URL' })
    .max(2000)
    .nullable()
    .optional(),
});
export type TRegressionAlertTriage = z.infer<typeof ZRegressionAlertTriage>;

/** A workload's alert precision over a window: counts by triage status and the share triaged invalid. */
export const ZAlertPrecision = z.object({
  days: z.number().int(),
  total: z.number().int(),
  byStatus: z.record(ZRegressionAlertStatus, z.number().int()),
  /** invalid ÷ alerts that notified (confirmed, or without confirmation) in the window; null without any. */
  falseAlertShare: z.number().nullable(),
  /** Alerts by confirmation: suspected = every alert that waited for confirmation runs (still waiting or decided). */
  suspected: z.number().int(),
  confirmed: z.number().int(),
  notConfirmed: z.number().int(),
  /** The headline metric's spread across recent baseline runs and the smallest change a verdict can detect. */
  noise: z
    .object({
      metric: z.string(),
      runs: z.number().int(),
      /** Coefficient of variation (sd ÷ mean) of the runs' values, in %. */
      cvPct: z.number(),
      /** Smallest change (in %) a run must show to be judged a regression at the verdict's confidence. */
      detectablePct: z.number(),
      /** How detectablePct follows (which test, limit or floor). */
      basis: z.string(),
    })
    .nullable(),
});
export type TAlertPrecision = z.infer<typeof ZAlertPrecision>;

/** A row of the run list page: the brief, key metrics with sparklines and the verdict vs its default baseline. */
export const ZRunListRow = ZRunBrief.extend({
  key: z.array(
    z.object({
      metric: z.string(),
      unit: z.string(),
      value: z.number().nullable(),
      spark: z.array(z.number()),
    }),
  ),
  verdict: ZRunVerdict.nullable(),
  verdictReason: z.string(),
  /** Which test judged each metric and how strong the evidence is (summarizeEvidence). */
  verdictEvidence: z.string(),
  /** The baseline the verdict is against ("main (last 3 runs)"); null without a verdict. */
  baselineName: z.string().nullable(),
  /** A regression's confirmation state (none: no confirmation asked or no regression). */
  confirmation: ZConfirmationState,
});
export type TRunListRow = z.infer<typeof ZRunListRow>;

/** The run page: brief, params, git, summary with labels and interval series by metric. */
export const ZRunView = ZRunBrief.extend({
  gitRepo: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
  exitCode: z.number().nullable(),
  error: z.string().nullable(),
  warnings: z.array(z.string()),
  hasRawOutput: z.boolean(),
  rawOutputBytes: z.number(),
  summary: z.array(ZMetric.extend({ label: z.string(), kind: ZMetricKind })),
  /**
   * Metric → [elapsed_s, value] points, one per interval sample; null where that interval has no value
   * (no operations, so no latency), so a chart breaks the line there instead of joining across the stall.
   */
  series: z.record(z.string(), z.array(z.tuple([z.number(), z.number().nullable()]))),
  direction: z.record(z.string(), ZDirection),
  duration: z.object({ seconds: z.number(), source: z.enum(['clock', 'output']) }).nullable(),
});
export type TRunView = z.infer<typeof ZRunView>;

/** The compare page: the comparison plus every run's interval samples. */
export const ZComparisonView = ZComparison.extend({
  samples: z.record(z.string(), z.array(ZIntervalSample)),
});
export type TComparisonView = z.infer<typeof ZComparisonView>;

/** A download (served with Content-Disposition by the web app). */
export const ZExportFile = z.object({ filename: z.string(), contentType: z.string(), body: z.string() });
export type TExportFile = z.infer<typeof ZExportFile>;

/** A run verdict against its default baseline. */
export const ZRunJudged = z.object({
  verdict: ZRunVerdict,
  reason: z.string(),
  /** Which test judged each metric and how strong the evidence is (summarizeEvidence). */
  evidence: z.string(),
  warning: z.string().nullable(),
  baselineName: z.string(),
  confirmation: ZConfirmationState,
});
export type TRunJudged = z.infer<typeof ZRunJudged>;

/** The workload page: metric history with change points, threshold bands and alerts. */
export const ZWorkloadHistory = z.object({
  workload: z.object({ id: z.string(), name: z.string(), tool: z.string(), description: z.string() }),
  runs: z.array(ZRunBrief),
  metrics: z.array(
    z.object({
      metric: z.string(),
      unit: z.string(),
      direction: ZDirection,
      label: z.string(),
      points: z.array(
        z.object({
          runId: z.string(),
          t: z.number(),
          value: z.number(),
          sha: z.string().nullable(),
          branch: z.string().nullable(),
          envHealthy: z.boolean().nullable(),
          /** The worse-side boundary of the threshold this run was judged against (its stored evaluation). */
          bound: z.number().nullable(),
        }),
      ),
      changePoints: z.array(z.object({ index: z.number(), runId: z.string(), t: z.number() })),
      threshold: ZThreshold.nullable(),
      band: z
        .object({ lo: z.number(), hi: z.number(), mean: z.number(), branch: z.string(), runs: z.number() })
        .nullable(),
    }),
  ),
  thresholds: z.array(ZThreshold),
  alerts: z.array(ZRegressionAlert.extend({ runVerdict: ZRunJudged.nullable() })),
  precision: ZAlertPrecision,
  /** Threshold baselines start here (an alert triaged "expected"); null: no reset. */
  baselineFrom: z.date().nullable(),
});
export type TWorkloadHistory = z.infer<typeof ZWorkloadHistory>;
