import { z } from 'zod';
import { ZVerdictMetricsParam } from './verdict-words';
import { ZDirection, ZEpochMs, ZFormat, ZJsonObject, ZRunStatus, ZTimestamp } from './common';
import { ZMetric } from './bench';
import { ZMachine } from './machine';

/** API I/O of benchmark runs (REST for CI + tRPC for the UI). */

const ZLabels = z
  .record(z.string().min(1).max(64), z.string().max(256))
  .refine((l) => Object.keys(l).length <= 64, 'at most 64 labels');

export const ZGit = z.object({
  repo: z.string().max(512).default(''),
  branch: z.string().max(256).default(''),
  sha: z.string().max(64).default(''),
});

export const ZRunCreate = z.object({
  /** Cluster id or name. */
  cluster: z.string().min(1).max(128),
  /** Workload name; created (with `tool`, or the tool detected from `output`) when the org has none by that name. */
  workload: z.string().trim().min(1).max(128),
  /** The tool, or the output format (bmf, go-bench, google-benchmark, pytest-benchmark, hyperfine, k6, benchbase, ycsb) of a submitted output. */
  tool: ZFormat.optional(),
  /** The benchmark's output: when given, the tool is detected from it (if `tool` is omitted) and it is stored as by POST /runs/{id}/output. */
  output: z
    .string()
    .max(8 * 1024 * 1024)
    .optional(),
  params: ZJsonObject.optional(),
  git: ZGit.optional(),
  labels: ZLabels.optional(),
  startedAt: ZTimestamp.optional(),
  /** The machine the run ran on (the CLI sends it): baselines are chosen from runs on the same kind. */
  machine: ZMachine.optional(),
  /** Confirmation runs a suspected regression of this run waits for before it alerts (CLI `--confirm`). */
  confirm: z.number().int().min(1).max(10).optional(),
  /** The suspected run this run confirms (CLI `--confirm`: same workload, judged against that run's baseline). */
  confirms: z.string().min(1).max(64).optional(),
});
export type TRunCreate = z.infer<typeof ZRunCreate>;
/** What a client sends (defaults not applied yet). */
export type TRunCreateIn = z.input<typeof ZRunCreate>;

export const ZRunId = z.object({ id: z.string().min(1).max(64) });
/** A run and what to compare it with: a run id, a branch or `branch:N` (default: the workload's baseline). */
export const ZRunBaselineIn = ZRunId.extend({ baseline: z.string().min(1).max(256).optional() });
/** A run compared with its baseline; `verdictMetrics` (`tps,latency`) overrides the workload's verdict metrics. */
export const ZRunCompareIn = ZRunBaselineIn.extend({ verdictMetrics: ZVerdictMetricsParam.optional() });

export const ZRunSampleIn = z.object({
  /** Epoch ms; defaults to the run's start + elapsed_s. */
  ts: ZEpochMs.optional(),
  elapsed_s: z.number().nonnegative(),
  values: z.record(z.string().min(1).max(64), z.number()),
});
export type TRunSampleIn = z.infer<typeof ZRunSampleIn>;

export const ZRunSamplesIn = ZRunId.extend({
  /** Idempotency key for retries; the same id is stored once. */
  batchId: z.string().min(8).max(128).optional(),
  samples: z.array(ZRunSampleIn).min(1).max(10_000),
});
export type TRunSamplesIn = z.infer<typeof ZRunSamplesIn>;

/** Largest tool output a run takes (characters in JSON, bytes as text/plain). */
export const OUTPUT_MAX_BYTES = 8 * 1024 * 1024;

export const ZRunOutputIn = ZRunId.extend({
  output: z.string().max(OUTPUT_MAX_BYTES),
  tool: ZFormat.optional(),
});
export type TRunOutputIn = z.infer<typeof ZRunOutputIn>;

/** A structured metric; unit and direction default from the metric catalogue when it knows the name. */
export const ZMetricIn = z.object({
  name: z.string().min(1).max(128),
  value: z.number(),
  unit: z.string().max(32).optional(),
  direction: ZDirection.optional(),
});

export const ZRunResultsIn = ZRunId.extend({ metrics: z.array(ZMetricIn).min(1).max(1000) });
export type TRunResultsIn = z.infer<typeof ZRunResultsIn>;

export const ZRunFinishIn = ZRunId.extend({
  status: z.enum(['succeeded', 'failed', 'cancelled']),
  exitCode: z.number().int().min(-1024).max(1024).optional(),
  error: z.string().max(4000).optional(),
  /** When the run ended (for results posted after the fact); defaults to now. */
  finishedAt: ZTimestamp.optional(),
});
export type TRunFinishIn = z.infer<typeof ZRunFinishIn>;

export const ZRunListIn = z.object({
  /** Cluster id or name. */
  cluster: z.string().max(128).optional(),
  /** Workload name or id. */
  workload: z.string().max(128).optional(),
  tool: ZFormat.optional(),
  branch: z.string().max(256).optional(),
  status: ZRunStatus.optional(),
  /** `key=value`; several separated by commas (all must match). */
  label: z.string().max(1024).optional(),
  from: ZTimestamp.optional(),
  to: ZTimestamp.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** `nextCursor` of the previous page. */
  cursor: z.string().max(64).optional(),
});
export type TRunListIn = z.infer<typeof ZRunListIn>;

export const ZRun = z.object({
  id: z.string(),
  clusterId: z.string().nullable(),
  clusterName: z.string().nullable(),
  workloadId: z.string().nullable(),
  workloadName: z.string().nullable(),
  tool: z.string(),
  toolWorkload: z.string(),
  params: z.record(z.string(), z.unknown()),
  git: z.object({ repo: z.string().nullable(), branch: z.string().nullable(), sha: z.string().nullable() }),
  labels: z.record(z.string(), z.string()),
  status: ZRunStatus,
  exitCode: z.number().nullable(),
  error: z.string().nullable(),
  summary: z.array(ZMetric),
  warnings: z.array(z.string()),
  envHealthy: z.boolean().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type TRun = z.infer<typeof ZRun>;

export const ZRunDetail = ZRun.extend({ hasRawOutput: z.boolean() });
export type TRunDetail = z.infer<typeof ZRunDetail>;

export const ZRunPage = z.object({ items: z.array(ZRun), nextCursor: z.string().nullable() });
export type TRunPage = z.infer<typeof ZRunPage>;

export const ZRunOutputResult = z.object({
  tool: ZFormat,
  workload: z.string(),
  summary: z.array(ZMetric),
  warnings: z.array(z.string()),
  incomplete: z.boolean(),
  /** Interval samples stored from the output (0 when live samples were already posted). */
  samples: z.number().int(),
  /** The output ends in an error: the run finishes as failed. */
  error: z.string().nullable(),
});
export type TRunOutputResult = z.infer<typeof ZRunOutputResult>;
