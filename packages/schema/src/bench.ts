import { z } from 'zod';
import { ZDirection, ZFormat } from './common';

// zod 4 numbers reject NaN and ±Infinity.
const finite = z.number();

/** One result metric; `name` is a catalogue name (see METRICS in @clusterscope/bench), optionally `op.name`. */
export const ZMetric = z.object({
  name: z.string().min(1).max(128),
  value: finite,
  unit: z.string().max(32),
  direction: ZDirection,
});
export type TMetric = z.infer<typeof ZMetric>;

/** One interval line of a benchmark output, e.g. `{ tps, qps, lat_p95_ms, errors_per_s }`. */
export const ZIntervalSample = z.object({
  elapsed_s: z.number().nonnegative(),
  values: z.record(z.string().max(128), finite),
});
export type TIntervalSample = z.infer<typeof ZIntervalSample>;

/** One latency histogram bucket (sysbench `--histogram`, hey "Response time histogram"). */
export const ZHistogramBucket = z.object({ value_ms: finite, count: z.number().int().nonnegative() });
export type THistogramBucket = z.infer<typeof ZHistogramBucket>;

/** Per-statement latency (pgbench `-r`). */
export const ZStatementLatency = z.object({
  statement: z.string().max(4096),
  latency_ms: finite,
  failures: z.number().int().nonnegative().nullable(),
});
export type TStatementLatency = z.infer<typeof ZStatementLatency>;

export const ZParseResult = z.object({
  tool: ZFormat,
  workload: z.string().max(128),
  samples: z.array(ZIntervalSample),
  summary: z.array(ZMetric),
  warnings: z.array(z.string()),
  /** True when the output ends before the tool's final summary (interrupted run). */
  incomplete: z.boolean(),
  /** The output ends in an error (e.g. an `Error: …` line after the last tick): the run failed. */
  error: z.string().max(4000).optional(),
  histogram: z.array(ZHistogramBucket).optional(),
  statements: z.array(ZStatementLatency).optional(),
});
export type TParseResult = z.infer<typeof ZParseResult>;

/** Threshold tests, with Bencher semantics (see evaluateThreshold in @clusterscope/bench). */
export const THRESHOLD_TESTS = ['percentage', 'z_score', 't_test', 'iqr'] as const;
export const ZThresholdTest = z.enum(THRESHOLD_TESTS);
export type TThresholdTest = z.infer<typeof ZThresholdTest>;

export const ZThresholdConfig = z.object({
  test: ZThresholdTest,
  /** percentage: max % worse (10 = 10%); z_score: max |z|; t_test: confidence (0..1) or critical t (≥1); iqr: k. */
  limit: z.number().positive(),
  minSamples: z.number().int().min(1).default(2),
});
export type TThresholdConfig = z.input<typeof ZThresholdConfig>;
