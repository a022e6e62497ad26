import type { TParseResult } from '@clusterscope/schema';
import { ParseError } from '../errors';
import { isObject, parseJsonOutput } from './json-output';
import { ResultBuilder } from './result-builder';

/** BenchBase's latency distribution (microseconds) → metric names (ms). */
const LATENCY: Record<string, string> = {
  'Average Latency (microseconds)': 'lat_avg_ms',
  'Minimum Latency (microseconds)': 'lat_min_ms',
  '25th Percentile Latency (microseconds)': 'lat_p25_ms',
  'Median Latency (microseconds)': 'lat_p50_ms',
  '75th Percentile Latency (microseconds)': 'lat_p75_ms',
  '90th Percentile Latency (microseconds)': 'lat_p90_ms',
  '95th Percentile Latency (microseconds)': 'lat_p95_ms',
  '99th Percentile Latency (microseconds)': 'lat_p99_ms',
  'Maximum Latency (microseconds)': 'lat_max_ms',
};

/** States BenchBase ends a finished run in (older releases write EXIT, newer DONE). */
const FINISHED = new Set(['DONE', 'EXIT']);

/**
 * Reads a number field: absent is null, anything but a finite number (or a numeric string, as older
 * releases write the configuration fields) is a 422 naming the field.
 */
function field(doc: Record<string, unknown>, key: string, where = ''): number | null {
  const v = doc[key];
  if (v === undefined || v === null) return null;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw new ParseError(
      `benchbase: ${where}"${key}" must be a number, not ${JSON.stringify(v).slice(0, 40)}`,
      'BenchBase summary with a bad value',
      'benchbase',
    );
  return n;
}

/**
 * BenchBase's result summary (`results/<benchmark>_<time>.summary.json`): throughput and goodput
 * (requests = transactions), the latency distribution in ms, the measured requests and elapsed time. The
 * share of requests that did not commit is `errors_pct`; a final state other than DONE/EXIT fails the run.
 */
export function parseBenchbase(output: string): TParseResult {
  const doc = parseJsonOutput(output, 'benchbase', 'BenchBase summary');
  if (!isObject(doc) || !('Throughput (requests/second)' in doc))
    throw new ParseError(
      'benchbase: expected a summary object with "Throughput (requests/second)" (results/*.summary.json)',
      'JSON that is not a BenchBase summary',
      'benchbase',
    );
  const b = new ResultBuilder('benchbase');
  b.workload = typeof doc['Benchmark Type'] === 'string' ? doc['Benchmark Type'] : 'benchbase';
  const tps = field(doc, 'Throughput (requests/second)');
  const goodput = field(doc, 'Goodput (requests/second)');
  b.metric('tps', tps, 'tx/s');
  b.metric('goodput_tps', goodput, 'tx/s');
  if (tps !== null && goodput !== null && tps > 0)
    b.metric('errors_pct', Math.max(0, (1 - goodput / tps) * 100));
  b.metric('transactions', field(doc, 'Measured Requests'));
  const ns = field(doc, 'Elapsed Time (nanoseconds)');
  b.metric('duration_s', ns === null ? null : ns / 1e9, 's');
  const dist = doc['Latency Distribution'];
  if (dist !== undefined && !isObject(dist))
    throw new ParseError(
      'benchbase: "Latency Distribution" must be an object',
      'BenchBase summary with a bad value',
      'benchbase',
    );
  for (const [key, name] of Object.entries(LATENCY)) {
    const us = dist ? field(dist, key, '"Latency Distribution".') : null;
    b.metric(name, us === null ? null : us / 1000, 'ms');
  }
  const state = doc['Final State'];
  if (typeof state === 'string' && !FINISHED.has(state.toUpperCase())) {
    b.error = `BenchBase final state ${state.slice(0, 40)}`;
    b.warnings.push(`error: ${b.error}`);
  }
  return b.build('BenchBase summary without values');
}
