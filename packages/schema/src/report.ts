import { z } from 'zod';
import { ZRunStatus } from './common';
import {
  CONFIRMATION_WORDS,
  ZAlertPrecision,
  ZBaselineRef,
  ZConfirmation,
  ZRunVerdict,
  ZVerdict,
  type TConfirmationState,
  type TRunVerdict,
} from './compare';
import { ZRunBaselineIn } from './runs';

/** The words of a run verdict: the run page's badge, the report, the CLI, the PR comment and MR note. */
export const VERDICT_WORDS: Record<TRunVerdict, string> = {
  regression: 'regression',
  improvement: 'improvement',
  noise: 'no change',
  unhealthy_env: 'not judged',
  no_baseline: 'no baseline',
  incomparable: 'not comparable',
};

/** "regression (not confirmed)": a run verdict with its confirmation state, as every surface shows it. */
export function describeVerdict(verdict: TRunVerdict, confirmation: TConfirmationState = 'none'): string {
  const w = VERDICT_WORDS[verdict];
  return verdict === 'regression' && confirmation !== 'none'
    ? `${w} (${CONFIRMATION_WORDS[confirmation]})`
    : w;
}

export const ZRunReportIn = ZRunBaselineIn.extend({
  /** `markdown`: the body is the markdown report itself (text/markdown); `json`: the structured report. */
  format: z.enum(['markdown', 'json']).default('json'),
  /**
   * A pull request's base branch (`--start-point`, GITHUB_BASE_REF, CI_MERGE_REQUEST_TARGET_BRANCH_NAME):
   * without `baseline`, the run's own branch is the baseline once it has runs, this branch until then.
   */
  start_point: z.string().min(1).max(256).optional(),
});

/** One metric row of a report: judged (with its test) or shown with the reason it was not judged. */
export const ZReportMetric = z.object({
  metric: z.string(),
  label: z.string(),
  unit: z.string(),
  baseline: z.number().nullable(),
  value: z.number(),
  change_pct: z.number().nullable(),
  ci95: z.tuple([z.number(), z.number()]).nullable(),
  p_value: z.number().nullable(),
  /** The test behind the interval and p value, in words ("Welch's t", "bootstrap", "summary values"). */
  test: z.string(),
  /** null: not judged (see `reason`). */
  verdict: ZVerdict.nullable(),
  reason: z.string(),
});
export type TReportMetric = z.infer<typeof ZReportMetric>;

/** A run's comparison report, rendered once on the server; every CI surface prints this. */
export const ZRunReport = z.object({
  run_id: z.string(),
  run_url: z.string(),
  compare_url: z.string().nullable(),
  cluster: z.string(),
  workload: z.string(),
  tool: z.string(),
  branch: z.string().nullable(),
  sha: z.string().nullable(),
  status: ZRunStatus,
  verdict: ZRunVerdict,
  /** describeVerdict(verdict, confirmation state). */
  verdict_words: z.string(),
  /** A regression that fails a check: confirmed, or judged without confirmation. */
  regression: z.boolean(),
  /** A suspected regression's confirmation runs and decision (null: none asked or no regression). */
  confirmation: ZConfirmation.nullable(),
  /** The suspected run this run confirms. */
  confirms: z.string().nullable(),
  /** The workload's alert precision and noise (null: the run has no workload). */
  precision: ZAlertPrecision.nullable(),
  regressions: z.array(z.string()),
  reason: z.string(),
  baseline: ZBaselineRef,
  /** Which baseline was used and why (or why there is none and what to pass). */
  baseline_note: z.string(),
  /** Shown in every surface: cross-machine comparison, missing branch, unhealthy environment… */
  warnings: z.array(z.string()),
  metrics: z.array(ZReportMetric),
  rule: z.string(),
  markdown: z.string(),
  text: z.string(),
});
export type TRunReport = z.infer<typeof ZRunReport>;
