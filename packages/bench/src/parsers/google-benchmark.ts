import type { TParseResult } from '@clusterscope/schema';
import { ParseError } from '../errors';
import { isObject, metricName, parseJsonOutput } from './json-output';
import { ResultBuilder } from './result-builder';

const TO_NS: Record<string, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };

/**
 * Google Benchmark `--benchmark_format=json` (or `--benchmark_out`): one metric per benchmark for real
 * and CPU time (in ns) and the items/bytes rates it reports; aggregate rows (mean, median, stddev of
 * repetitions) are kept as they are named. A benchmark that errored (`error_occurred`) fails the run.
 */
export function parseGoogleBenchmark(output: string): TParseResult {
  const doc = parseJsonOutput(output, 'google-benchmark', 'Google Benchmark output');
  if (!isObject(doc) || !Array.isArray(doc.benchmarks))
    throw new ParseError(
      'google-benchmark: expected an object with a "benchmarks" array',
      'JSON that is not Google Benchmark output',
      'google-benchmark',
    );
  const b = new ResultBuilder('google-benchmark');
  const ctx = isObject(doc.context) ? doc.context : {};
  b.workload = typeof ctx.executable === 'string' ? ctx.executable.slice(0, 128) : 'google-benchmark';
  for (const [i, row] of doc.benchmarks.entries()) {
    if (!isObject(row) || typeof row.name !== 'string')
      throw new ParseError(
        `google-benchmark: benchmarks[${i}] has no "name"`,
        'Google Benchmark output with a bad entry',
        'google-benchmark',
      );
    if (row.error_occurred === true) {
      const msg = `${row.name}: ${typeof row.error_message === 'string' ? row.error_message : 'error'}`;
      b.error ??= msg.slice(0, 4000);
      b.warnings.push(`error: ${msg.slice(0, 300)}`);
      continue;
    }
    const scale = TO_NS[typeof row.time_unit === 'string' ? row.time_unit : 'ns'];
    if (scale === undefined)
      throw new ParseError(
        `google-benchmark: benchmarks[${i}].time_unit "${String(row.time_unit).slice(0, 10)}" is not ns, us, ms or s`,
        'Google Benchmark output with an unknown time unit',
        'google-benchmark',
      );
    const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
    const real = num(row.real_time);
    const cpu = num(row.cpu_time);
    if (real === null && cpu === null)
      throw new ParseError(
        `google-benchmark: benchmarks[${i}] ("${row.name.slice(0, 60)}") has no real_time or cpu_time`,
        'Google Benchmark output without timings',
        'google-benchmark',
      );
    b.metric(metricName(row.name, 'real_time_ns'), real === null ? null : real * scale, 'ns');
    b.metric(metricName(row.name, 'cpu_time_ns'), cpu === null ? null : cpu * scale, 'ns');
    b.metric(metricName(row.name, 'items_per_s'), num(row.items_per_second), 'items/s');
    b.metric(metricName(row.name, 'bytes_per_s'), num(row.bytes_per_second), 'B/s');
  }
  return b.build('Google Benchmark JSON without benchmarks');
}
