import { z } from 'zod';
import { ZDayOrTimestamp, ZDirection, ZRunStatus } from './common';
import { ZThresholdTest } from './bench';

export const ZVerdict = z.enum(['improvement', 'regression', 'noise']);
export type TVerdict = z.infer<typeof ZVerdict>;

/** Verdict shown for a whole run against its baseline. */
export const ZRunVerdict = z.enum(['regression', 'improvement', 'noise', 'unhealthy_env', 'no_baseline']);
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
});
export type TRunFilter = z.input<typeof ZRunFilter>;

/** One metric of a run compared with its baseline (CI `--fail-on-regression` reads this). */
export const ZMetricVerdict = z.object({
  metric: z.string(),
  unit: z.string(),
  direction: ZDirection,
  /** Baseline mean (interval samples) or summary value. */
  baseline: z.number(),
  value: z.number(),
  change_pct: z.number().nullable(),
  ci95: z.tuple([z.number(), z.number()]).nullable(),
  p_value: z.number().nullable(),
  /** The one test behind ci95 and p_value (none: summary values only). */
  test: z.enum(['welch', 'bootstrap', 'none']),
  verdict: ZVerdict,
  source: z.enum(['samples', 'summary']),
  n_baseline: z.number().int(),
  n_value: z.number().int(),
  reason: z.string(),
});
export type TMetricVerdict = z.infer<typeof ZMetricVerdict>;

export const ZBaselineRef = z.object({
  kind: z.enum(['run', 'branch']),
  /** The run id or branch name asked for. */
  ref: z.string(),
  branch: z.string().nullable(),
  /** Runs whose samples form the baseline (pooled, newest first). */
  run_ids: z.array(z.string()),
});
export type TBaselineRef = z.infer<typeof ZBaselineRef>;

export const ZRunComparison = z.object({
  run_id: z.string(),
  baseline: ZBaselineRef,
  verdicts: z.array(ZMetricVerdict),
  /** True when any metric regressed and the environment was healthy. */
  regression: z.boolean(),
  envHealthy: z.boolean().nullable(),
  env_reasons: z.array(z.string()),
  verdict: ZRunVerdict,
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

/** Multi-run comparison: first run is the baseline. */
export const ZComparison = z.object({
  runs: z.array(ZRunBrief),
  metrics: z.array(
    z.object({
      metric: z.string(),
      unit: z.string(),
      direction: ZDirection,
      baseline: z.number(),
      /** One entry per non-baseline run, in the order of `runs.slice(1)`. */
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

export const ZAlert = z.object({
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
  gitBranch: z.string().nullable(),
  gitSha: z.string().nullable(),
});
export type TAlert = z.infer<typeof ZAlert>;
