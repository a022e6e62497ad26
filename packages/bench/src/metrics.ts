import type { TDirection } from '@clusterscope/schema';

export type TMetricInfo = { unit: string; direction: TDirection; label: string };

const hi = (unit: string, label: string): TMetricInfo => ({ unit, direction: 'higher', label });
const lo = (unit: string, label: string): TMetricInfo => ({ unit, direction: 'lower', label });

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
  transactions: hi('count', 'Transactions'),
  ops: hi('count', 'Operations'),
  requests: hi('count', 'Requests'),
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
  conn_time_ms: lo('ms', 'Initial connection time'),
  errors: lo('count', 'Errors'),
  errors_per_s: lo('errors/s', 'Errors/s'),
  errors_pct: lo('%', 'Failed transactions'),
  reconnects_per_s: lo('reconn/s', 'Reconnects/s'),
  non_2xx: lo('count', 'Non-2xx/3xx responses'),
  audit_failures: lo('count', 'Failed audit checks'),
  duration_s: lo('s', 'Duration'),
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
