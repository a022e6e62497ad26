import { z } from 'zod';
import { ZEpochMs, ZLiveness } from './common';

// Bounds match the ClickHouse column types, so a value the schema accepts always inserts (UInt64 counters
// stay exact in JS up to 2^53; UInt32 for per-node counts and ids).
// z.int() is a safe integer (|x| <= 2^53 - 1) in one check: ingest validates ~25 of these per sample.
/** UInt64 counter or byte count. */
const count = z.int().nonnegative();
const bytes = count;
const u32 = z.int().nonnegative().max(0xffff_ffff);
const nodeId = z.int().positive().max(0xffff_ffff);
/** A limit; null means unlimited ("max"). */
const limit = count.nullable();
/** PSI avg10 is a percentage. */
const pct = z.number().nonnegative().max(100);
/** Load average (Float32 column). */
const load = z.number().nonnegative().max(1e6);

/**
 * One CockroachDB node. Text fields are null where the source printed NULL (dead or decommissioned nodes); counts
 * are null when the source does not report them (the default `node status` table has no range columns):
 * unknown, never 0.
 */
export const ZNodeStatusSample = z.object({
  kind: z.literal('node_status'),
  ts: ZEpochMs,
  node_id: nodeId,
  address: z.string().max(256).nullable(),
  sql_address: z.string().max(256).nullable().default(''),
  locality: z.string().max(512).nullable().default(''),
  build: z.string().max(64).nullable().default(''),
  started_at: ZEpochMs.nullable().default(null),
  updated_at: ZEpochMs.nullable().default(null),
  liveness: ZLiveness,
  is_live: z.boolean(),
  is_available: z.boolean(),
  is_draining: z.boolean().default(false),
  membership: z.string().max(32).default('active'),
  replicas: u32.nullable(),
  replicas_leaders: u32.nullable(),
  replicas_leaseholders: u32.nullable(),
  ranges: u32.nullable(),
  ranges_unavailable: u32.nullable(),
  ranges_underreplicated: u32.nullable(),
  live_bytes: bytes.nullable(),
  key_bytes: bytes.nullable(),
  value_bytes: bytes.nullable(),
  intent_bytes: bytes.nullable(),
  system_bytes: bytes.nullable(),
  capacity: bytes.nullable(),
  capacity_available: bytes.nullable(),
  capacity_used: bytes.nullable(),
  uptime_s: z.number().nonnegative().default(0),
});
export type TNodeStatusSample = z.infer<typeof ZNodeStatusSample>;

export const ZIoDevice = z.object({
  device: z.string().max(32),
  rbytes: count,
  wbytes: count,
  rios: count,
  wios: count,
  rbps_max: limit.default(null),
  wbps_max: limit.default(null),
  riops_max: limit.default(null),
  wiops_max: limit.default(null),
});

/** Pressure stall info: avg10 in %, total in µs. */
export const ZPsi = z.object({
  cpu_some_avg10: pct,
  cpu_some_total: count,
  memory_some_avg10: pct,
  memory_full_avg10: pct,
  memory_full_total: count,
  io_some_avg10: pct,
  io_full_avg10: pct,
  io_full_total: count,
});

/** Raw cgroup counters; rates are derived at query time. */
export const ZCgroupUsageSample = z.object({
  kind: z.literal('cgroup_usage'),
  ts: ZEpochMs,
  host: z.string().max(256),
  node_id: nodeId.nullable().default(null),
  cgroup: z.string().max(512),
  version: z.union([z.literal(1), z.literal(2)]),
  cpu_usage_usec: count,
  cpu_nr_periods: count.default(0),
  cpu_nr_throttled: count.default(0),
  cpu_throttled_usec: count.default(0),
  /** cpu.max quota / cfs_quota_us; null = unlimited. */
  cpu_quota_usec: limit.default(null),
  cpu_period_usec: count.default(100000),
  /** cpu.weight (v2) or cpu.shares (v1). */
  cpu_weight: count.nullable().default(null),
  cpu_shares: count.nullable().default(null),
  mem_current: count,
  mem_max: limit.default(null),
  mem_swap_current: count.default(0),
  mem_swap_max: limit.default(null),
  mem_anon: count.default(0),
  mem_file: count.default(0),
  io: z.array(ZIoDevice).max(256).default([]),
  psi: ZPsi.nullable().default(null),
});
export type TCgroupUsageSample = z.infer<typeof ZCgroupUsageSample>;

export const ZHostMetricsSample = z.object({
  kind: z.literal('host_metrics'),
  ts: ZEpochMs,
  host: z.string().max(256),
  node_id: nodeId.nullable().default(null),
  cpus: z.number().int().positive().max(65_535),
  load1: load,
  load5: load,
  load15: load,
  mem_total: count,
  mem_available: count,
  disks: z
    .array(z.object({ path: z.string().max(512), total: count, used: count, avail: count }))
    .max(64)
    .default([]),
});
export type THostMetricsSample = z.infer<typeof ZHostMetricsSample>;

/** One interval line of a running benchmark: metric name -> value. */
export const ZBenchSample = z.object({
  kind: z.literal('bench_sample'),
  ts: ZEpochMs,
  run_id: z.string().min(1).max(64),
  elapsed_s: z.number().nonnegative(),
  values: z.record(z.string().max(64), z.number().finite()),
});
export type TBenchSample = z.infer<typeof ZBenchSample>;

/** Prometheus metric name (exposition format 0.0.4). */
export const ZMetricName = z
  .string()
  .max(200)
  .regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/, 'must be a Prometheus metric name');
/** Prometheus label name; `__`-prefixed names are reserved. */
const ZLabelName = z
  .string()
  .max(100)
  .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'must be a Prometheus label name')
  .refine((k) => !k.startsWith('__'), 'label names starting with __ are reserved');
export const METRIC_MAX_LABELS = 24;
export const ZMetricType = z.enum(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
export type TMetricType = z.infer<typeof ZMetricType>;

/**
 * One Prometheus series value, sent raw (counters stay counters; rates and quantiles are computed
 * at query time). A histogram family arrives as its `<name>_bucket` (with an `le` label), `<name>_sum`
 * and `<name>_count` series, each with type 'histogram'; a summary as `<name>{quantile}`, `_sum`,
 * `_count` with type 'summary'. Non-finite values (NaN, ±Inf) are not sent.
 */
export const ZMetricSample = z.object({
  kind: z.literal('metric'),
  ts: ZEpochMs,
  node_id: nodeId.nullable().default(null),
  host: z.string().max(256),
  name: ZMetricName,
  type: ZMetricType.default('untyped'),
  labels: z
    .record(ZLabelName, z.string().max(256))
    .default({})
    .refine((l) => Object.keys(l).length <= METRIC_MAX_LABELS, `at most ${METRIC_MAX_LABELS} labels`),
  value: z.number().finite(),
});
export type TMetricSample = z.infer<typeof ZMetricSample>;

/** Longest last-error line a heartbeat carries. */
export const INPUT_ERROR_MAX = 300;

/**
 * One agent input's collection state, as its heartbeat reports it. `error` is the last failure as one line
 * with URL credentials and tokens removed (the agent's `redactError`).
 */
export const ZInputState = z.object({
  input: z.string().min(1).max(64),
  state: z.enum(['ok', 'failing']),
  error: z.string().max(INPUT_ERROR_MAX).nullable(),
  /** Epoch ms of the first failure of the current run of failures; null while ok. */
  since: ZEpochMs.nullable(),
  /** Collections that failed in a row. */
  failures: z.number().int().nonnegative(),
});
export type TInputState = z.infer<typeof ZInputState>;

export const ZHeartbeatSample = z.object({
  kind: z.literal('heartbeat'),
  ts: ZEpochMs,
  host: z.string().max(256),
  version: z.string().max(64),
  uptime_s: z.number().nonnegative(),
  capabilities: z.array(z.string().max(64)).max(32).default([]),
  outbox_bytes: count.default(0),
  outbox_pending: count.default(0),
  outbox_evictions: count.default(0),
  /** Prometheus series the agent dropped (past its series cap) since it started; never silent. */
  metrics_dropped: count.default(0),
  /** Each input's collection state (absent from agents older than this field). */
  inputs: z.array(ZInputState).max(32).optional(),
  /** The agent's job confinement (jobs.allowed_dirs / allowed_hosts / max_file_bytes) when jobs are enabled. */
  job_limits: z
    .object({
      allowed_dirs: z.array(z.string().min(1).max(1024)).max(64),
      allowed_hosts: z.array(z.string().min(1).max(256)).max(256),
      max_file_bytes: z.number().int().nonnegative(),
    })
    .optional(),
});
export type THeartbeatSample = z.infer<typeof ZHeartbeatSample>;

export const ZSample = z.discriminatedUnion('kind', [
  ZNodeStatusSample,
  ZCgroupUsageSample,
  ZHostMetricsSample,
  ZBenchSample,
  ZHeartbeatSample,
  ZMetricSample,
]);
export type TSample = z.infer<typeof ZSample>;
export type TSampleKind = TSample['kind'];

export const INGEST_MAX_SAMPLES = 50_000;

export const ZIngestBatch = z.object({
  /** Idempotency key: a retried batch id is accepted once. */
  batchId: z.string().min(8).max(128),
  /** Cluster id; ignored (must match) when the token is bound to a cluster. */
  cluster: z.string().min(1).max(64).optional(),
  agent: z.object({ name: z.string().min(1).max(256), version: z.string().max(64) }).optional(),
  samples: z.array(ZSample).max(INGEST_MAX_SAMPLES),
});
export type TIngestBatch = z.infer<typeof ZIngestBatch>;

export const ZIngestAccepted = z.object({
  accepted: z.number().int(),
  duplicate: z.boolean(),
});
