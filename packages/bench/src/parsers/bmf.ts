import type { TParseResult } from '@clusterscope/schema';
import { ParseError } from '../errors';
import { isObject, metricName, parseJsonOutput } from './json-output';
import { ResultBuilder } from './result-builder';

/** Bencher's built-in measures: their units (the rest keep the measure's own name as unit). */
const MEASURES: Record<string, string> = {
  latency: 'ns',
  throughput: 'ops/s',
  'build-time': 's',
  'file-size': 'B',
};

/**
 * Bencher Metric Format JSON: `{"<benchmark>": {"<measure>": {"value", "lower_value"?, "upper_value"?}}}`
 * (https://bencher.dev/docs/reference/bencher-metric-format/). One metric per benchmark and measure,
 * named `<benchmark>.<measure>`; the bounds become `.lower`/`.upper` companions only in warnings.
 */
export function parseBmf(output: string): TParseResult {
  const doc = parseJsonOutput(output, 'bmf', 'Bencher Metric Format');
  if (!isObject(doc))
    throw new ParseError('bmf: the top level must be an object of benchmarks', 'JSON that is not BMF', 'bmf');
  const b = new ResultBuilder('bmf');
  b.workload = 'bmf';
  for (const [bench, measures] of Object.entries(doc)) {
    if (!isObject(measures))
      throw new ParseError(
        `bmf: benchmark "${bench.slice(0, 80)}" must be an object of measures`,
        'BMF with a bad benchmark',
        'bmf',
      );
    for (const [measure, metric] of Object.entries(measures)) {
      const value = isObject(metric) ? metric.value : undefined;
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw new ParseError(
          `bmf: "${bench.slice(0, 80)}"."${measure.slice(0, 40)}".value must be a number`,
          'BMF with a measure without a value',
          'bmf',
        );
      b.metric(metricName(bench, measure), value, MEASURES[measure] ?? measure.slice(0, 32));
    }
  }
  return b.build('BMF JSON without benchmarks');
}
