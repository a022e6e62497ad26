import type { TParseResult } from '@clusterscope/schema';
import { ParseError } from '../errors';
import { isObject, metricName, parseJsonOutput } from './json-output';
import { ResultBuilder } from './result-builder';

/** pytest-benchmark stats (seconds) → metric base names. */
const STATS: [string, string, string][] = [
  ['mean', 'time_mean_s', 's'],
  ['median', 'time_median_s', 's'],
  ['min', 'time_min_s', 's'],
  ['max', 'time_max_s', 's'],
  ['stddev', 'time_stddev_s', 's'],
  ['ops', 'ops_per_s', 'ops/s'],
];

/** pytest-benchmark `--benchmark-json` output: one metric per test (`fullname`) and statistic. */
export function parsePytestBenchmark(output: string): TParseResult {
  const doc = parseJsonOutput(output, 'pytest-benchmark', 'pytest-benchmark output');
  if (!isObject(doc) || !Array.isArray(doc.benchmarks))
    throw new ParseError(
      'pytest-benchmark: expected an object with a "benchmarks" array',
      'JSON that is not pytest-benchmark output',
      'pytest-benchmark',
    );
  const b = new ResultBuilder('pytest-benchmark');
  const commit = isObject(doc.commit_info) ? doc.commit_info : {};
  b.workload = typeof commit.project === 'string' ? commit.project.slice(0, 128) : 'pytest-benchmark';
  for (const [i, row] of doc.benchmarks.entries()) {
    const name = isObject(row) ? (row.fullname ?? row.name) : undefined;
    const stats = isObject(row) && isObject(row.stats) ? row.stats : undefined;
    if (typeof name !== 'string' || !stats)
      throw new ParseError(
        `pytest-benchmark: benchmarks[${i}] needs "fullname" and "stats"`,
        'pytest-benchmark output with a bad entry',
        'pytest-benchmark',
      );
    for (const [key, base, unit] of STATS) {
      const v = stats[key];
      b.metric(metricName(name, base), typeof v === 'number' ? v : null, unit);
    }
  }
  return b.build('pytest-benchmark JSON without benchmarks');
}
