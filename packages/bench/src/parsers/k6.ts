import type { TParseResult } from '@clusterscope/schema';
import { ParseError } from '../errors';
import { isObject, metricName, parseJsonOutput } from './json-output';
import { ResultBuilder } from './result-builder';

/** k6 trend statistics of a time metric (milliseconds) → metric base names. */
const TREND: Record<string, string> = {
  avg: 'lat_avg_ms',
  med: 'lat_p50_ms',
  min: 'lat_min_ms',
  max: 'lat_max_ms',
  'p(90)': 'lat_p90_ms',
  'p(95)': 'lat_p95_ms',
  'p(99)': 'lat_p99_ms',
  'p(99.9)': 'lat_p999_ms',
};

/** k6 names whose own statistics fit the catalogue better than the generic ones. */
const COUNTERS: Record<string, [count: string, rate: string, unit: string]> = {
  http_reqs: ['requests', 'rps', 'req/s'],
  iterations: ['iterations', 'iterations_per_s', 'iterations/s'],
  data_received: ['bytes', 'bytes_per_s', 'B/s'],
  data_sent: ['bytes', 'bytes_per_s', 'B/s'],
};

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A metric's statistics: under `values` (handleSummary's data) or beside `thresholds` (--summary-export). */
function statsOf(metric: Record<string, unknown>): Record<string, unknown> {
  return isObject(metric.values) ? metric.values : metric;
}

/** The metric's k6 type: given by handleSummary's data, inferred from the statistics in --summary-export. */
function typeOf(metric: Record<string, unknown>, stats: Record<string, unknown>): string {
  if (typeof metric.type === 'string') return metric.type;
  if ('avg' in stats || 'med' in stats || 'p(95)' in stats) return 'trend';
  if ('passes' in stats || 'fails' in stats) return 'rate';
  if ('count' in stats) return 'counter';
  return 'gauge';
}

/** Crossed thresholds: `{"p(95)<500": true}` (true = failed) in --summary-export, `{ok: false}` in handleSummary. */
function crossed(metric: Record<string, unknown>): string[] {
  if (!isObject(metric.thresholds)) return [];
  return Object.entries(metric.thresholds)
    .filter(([, v]) => v === true || (isObject(v) && v.ok === false))
    .map(([k]) => k);
}

/**
 * k6's end-of-test summary as JSON: `k6 run --summary-export=FILE` (statistics beside each metric) or the
 * `data` object `handleSummary` receives (`JSON.stringify(data)`: statistics under `values`, with `type` and
 * `contains`). Time trends become latencies in ms, `http_reqs` requests/s, `http_req_failed` the failed share
 * in %, `checks` the passed share; a crossed threshold fails the run (k6 exits 99 then).
 */
export function parseK6(output: string): TParseResult {
  const doc = parseJsonOutput(output, 'k6', 'k6 summary');
  if (!isObject(doc) || !isObject(doc.metrics))
    throw new ParseError(
      'k6: expected an object with "metrics" (k6 run --summary-export, or handleSummary data)',
      'JSON that is not a k6 summary',
      'k6',
    );
  const b = new ResultBuilder('k6');
  b.workload = 'k6';
  const failed: string[] = [];
  for (const [name, metric] of Object.entries(doc.metrics)) {
    if (!isObject(metric))
      throw new ParseError(
        `k6: metrics."${name.slice(0, 80)}" must be an object`,
        'k6 summary with a bad metric',
        'k6',
      );
    const stats = statsOf(metric);
    const type = typeOf(metric, stats);
    for (const t of crossed(metric)) failed.push(`${name} ${t}`);
    if (type === 'trend') {
      // A trend of times is in ms; handleSummary says so with `contains`, --summary-export only has k6's own names.
      const time = metric.contains === undefined ? true : metric.contains === 'time';
      for (const [stat, v] of Object.entries(stats)) {
        if (stat === 'count' || stat === 'thresholds') continue;
        const base = time ? (TREND[stat] ?? `lat_${stat.replace(/[^\w.]/g, '').replace('.', '')}_ms`) : stat;
        b.metric(metricName(name, base), num(v), time ? 'ms' : '');
      }
    } else if (type === 'counter') {
      const [count, rate, unit] = COUNTERS[name] ?? ['total', 'per_s', '/s'];
      b.metric(metricName(name, count), num(stats.count), COUNTERS[name] ? undefined : 'count');
      b.metric(metricName(name, rate), num(stats.rate), unit);
    } else if (type === 'rate') {
      const share = num(stats.rate ?? stats.value);
      const base = name === 'http_req_failed' ? 'errors_pct' : name === 'checks' ? 'pass_pct' : 'rate_pct';
      b.metric(metricName(name, base), share === null ? null : share * 100, '%');
    } else {
      b.metric(metricName(name, 'max'), num(stats.max ?? stats.value), '');
    }
  }
  const state = isObject(doc.state) ? doc.state : {};
  const ms = num(state.testRunDurationMs);
  b.metric('duration_s', ms === null ? null : ms / 1000, 's');
  if (failed.length) {
    b.error = `thresholds crossed: ${failed.join('; ')}`;
    b.warnings.push(`error: k6 ${b.error.slice(0, 300)}`);
  }
  return b.build('k6 summary without metrics');
}
