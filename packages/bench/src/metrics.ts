import { DEFAULT_VERDICT_KINDS, type TDirection, type TMetricKind } from '@clusterscope/schema';

export type TMetricInfo = { unit: string; direction: TDirection; label: string; kind: TMetricKind };

const hi = (unit: string, label: string, kind: TMetricKind = 'rate'): TMetricInfo => ({
  unit,
  direction: 'higher',
  label,
  kind,
});
const lo = (unit: string, label: string, kind: TMetricKind = 'latency'): TMetricInfo => ({
  unit,
  direction: 'lower',
  label,
  kind,
});

/** Every metric name a parser emits. Names may be prefixed by an operation: `read.ops_per_s`. */
export const METRICS = {
  tps: hi('tx/s', 'Transactions/s'),
  qps: hi('queries/s', 'Queries/s'),
  read_qps: hi('queries/s', 'Read queries/s'),
  write_qps: hi('queries/s', 'Write queries/s'),
  other_qps: hi('queries/s', 'Other queries/s'),
  ops_per_s: hi('ops/s', 'Operations/s'),
  events_per_s: hi('events/s', 'Events/s'),
  rps: hi('req/s', 'Requests/s'),
  tpmC: hi('tx/min', 'tpmC (new orders/min)'),
  efc_pct: hi('%', 'Efficiency'),
  transactions: hi('count', 'Transactions', 'count'),
  ops: hi('count', 'Operations', 'count'),
  requests: hi('count', 'Requests', 'count'),
  read_iops: hi('IO/s', 'Read IOPS'),
  write_iops: hi('IO/s', 'Write IOPS'),
  fsync_per_s: hi('ops/s', 'fsyncs/s'),
  read_bw_kib_s: hi('KiB/s', 'Read bandwidth'),
  write_bw_kib_s: hi('KiB/s', 'Write bandwidth'),
  mem_bw_kib_s: hi('KiB/s', 'Memory bandwidth'),
  transfer_kib_s: hi('KiB/s', 'Transfer rate'),
  lat_min_ms: lo('ms', 'Latency min'),
  lat_avg_ms: lo('ms', 'Latency avg'),
  lat_stddev_ms: lo('ms', 'Latency stddev'),
  lat_p10_ms: lo('ms', 'Latency p10'),
  lat_p25_ms: lo('ms', 'Latency p25'),
  lat_p50_ms: lo('ms', 'Latency p50'),
  lat_p75_ms: lo('ms', 'Latency p75'),
  lat_p90_ms: lo('ms', 'Latency p90'),
  lat_p95_ms: lo('ms', 'Latency p95'),
  lat_p99_ms: lo('ms', 'Latency p99'),
  lat_p999_ms: lo('ms', 'Latency p99.9'),
  lat_max_ms: lo('ms', 'Latency max'),
  read_lat_avg_ms: lo('ms', 'Read latency avg'),
  read_lat_p50_ms: lo('ms', 'Read latency p50'),
  read_lat_p95_ms: lo('ms', 'Read latency p95'),
  read_lat_p99_ms: lo('ms', 'Read latency p99'),
  read_lat_max_ms: lo('ms', 'Read latency max'),
  write_lat_avg_ms: lo('ms', 'Write latency avg'),
  write_lat_p50_ms: lo('ms', 'Write latency p50'),
  write_lat_p95_ms: lo('ms', 'Write latency p95'),
  write_lat_p99_ms: lo('ms', 'Write latency p99'),
  write_lat_max_ms: lo('ms', 'Write latency max'),
  lag_ms: lo('ms', 'Schedule lag'),
  conn_time_ms: lo('ms', 'Initial connection time', 'setup'),
  errors: lo('count', 'Errors', 'count'),
  errors_per_s: lo('errors/s', 'Errors/s', 'error_rate'),
  errors_pct: lo('%', 'Failed transactions', 'error_rate'),
  reconnects_per_s: lo('reconn/s', 'Reconnects/s', 'error_rate'),
  non_2xx: lo('count', 'Non-2xx/3xx responses', 'count'),
  audit_failures: lo('count', 'Failed audit checks', 'count'),
  duration_s: lo('s', 'Duration', 'duration'),
  // Code benchmarks (go test -bench, Google Benchmark, pytest-benchmark) and Bencher's built-in measures.
  ns_per_op: lo('ns', 'Time per operation', 'latency'),
  bytes_per_op: lo('B', 'Bytes allocated per operation', 'count'),
  allocs_per_op: lo('allocs', 'Allocations per operation', 'count'),
  mb_per_s: hi('MB/s', 'Throughput', 'rate'),
  real_time_ns: lo('ns', 'Real time', 'latency'),
  cpu_time_ns: lo('ns', 'CPU time', 'latency'),
  items_per_s: hi('items/s', 'Items/s', 'rate'),
  bytes_per_s: hi('B/s', 'Bytes/s', 'rate'),
  time_mean_s: lo('s', 'Time mean', 'latency'),
  time_median_s: lo('s', 'Time median', 'latency'),
  time_min_s: lo('s', 'Time min', 'latency'),
  time_max_s: lo('s', 'Time max', 'latency'),
  time_stddev_s: lo('s', 'Time stddev', 'latency'),
  latency: lo('ns', 'Latency', 'latency'),
  throughput: hi('ops/s', 'Throughput', 'rate'),
  'build-time': lo('s', 'Build time', 'duration'),
  'file-size': lo('B', 'File size', 'count'),
  // hyperfine, k6, BenchBase, YCSB.
  cpu_user_s: lo('s', 'User CPU time', 'latency'),
  cpu_system_s: lo('s', 'System CPU time', 'latency'),
  max_rss_bytes: lo('B', 'Peak memory', 'count'),
  lat_p9999_ms: lo('ms', 'Latency p99.99'),
  iterations: hi('count', 'Iterations', 'count'),
  iterations_per_s: hi('iterations/s', 'Iterations/s'),
  bytes: hi('B', 'Bytes', 'count'),
  total: hi('count', 'Total', 'count'),
  per_s: hi('/s', 'Per second'),
  pass_pct: hi('%', 'Passed', 'error_rate'),
  goodput_tps: hi('tx/s', 'Goodput (committed tx/s)'),
} as const satisfies Record<string, TMetricInfo>;

export type TMetricName = keyof typeof METRICS;

/** Catalogue name without an operation prefix: `read.lat_p99_ms` -> `lat_p99_ms`. */
export function getMetricBase(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot === -1 ? name : name.slice(dot + 1);
}

export function getMetricInfo(name: string): TMetricInfo | null {
  const base = getMetricBase(name);
  return Object.hasOwn(METRICS, base) ? METRICS[base as TMetricName] : null;
}

/** Direction of a metric; unknown names: latency/error-like names are lower-is-better, the rest higher. */
export function directionOf(name: string): TDirection {
  const info = getMetricInfo(name);
  if (info) return info.direction;
  return /lat|err|fail|_ms$|duration/i.test(getMetricBase(name)) ? 'lower' : 'higher';
}

/**
 * What a metric measures (catalogue first; unknown names by their shape): per-second names are rates,
 * error/failure ratios error rates, `_ms`/latency names latencies, anything else a count (not judged).
 */
export function getMetricKind(name: string): TMetricKind {
  const info = getMetricInfo(name);
  if (info) return info.kind;
  const base = getMetricBase(name);
  if (/err|fail/i.test(base)) return /_pct$|_per_s$|rate/i.test(base) ? 'error_rate' : 'count';
  if (/_per_s$|_ps$|iops/i.test(base)) return 'rate';
  if (/lat|_ms$/i.test(base)) return 'latency';
  if (/duration/i.test(base)) return 'duration';
  return 'count';
}

/**
 * Whether a metric can make a verdict: `choice` lists metric names (`tps`, `read.lat_p95_ms`) and kinds
 * (`latency`); empty or absent means DEFAULT_VERDICT_KINDS. `explicit` is true when the metric itself is
 * named (the workload then asks for it even when it is only indicative).
 */
export function selectVerdictMetric(
  name: string,
  choice: readonly string[] | null | undefined,
): { selected: boolean; explicit: boolean } {
  const kind = getMetricKind(name);
  if (!choice?.length) return { selected: DEFAULT_VERDICT_KINDS.includes(kind), explicit: false };
  const explicit = choice.includes(name) || choice.includes(getMetricBase(name));
  return { selected: explicit || choice.includes(kind), explicit };
}
