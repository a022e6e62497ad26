/** Values of `metric` rules from the window rows of getAlertMetricWindows (pure). */
import type { TAlertMetricRow } from '@clusterscope/tsdb';
import { ZAlertMetric, type TAggregation, type TAlertMetric } from '@clusterscope/schema';
import type { TSample } from './series';

/** A stored rule's metric spec (null when absent or no longer valid). */
export function parseMetric(m: unknown): TAlertMetric | null {
  if (m == null) return null;
  const r = ZAlertMetric.safeParse(m);
  return r.success ? r.data : null;
}

/** Rules with the same matchers and window share one query (over the union of their names). */
export const metricFetchKey = (m: TAlertMetric) =>
  JSON.stringify([Object.entries(m.matchers).sort(), m.windowS]);

const parseLe = (le: string) => (/^\+?inf$/i.test(le) ? Infinity : Number(le));

/**
 * histogram_quantile over (upper bound, cumulative rate) pairs, as Prometheus: counts made monotonic,
 * the rank q × total interpolated linearly inside its bucket (from 0 below the first bound), a rank in
 * +Inf answers the highest finite bound; no +Inf bucket or no observations → null.
 */
export function histogramQuantile(q: number, buckets: [number, number][]): number | null {
  const b = buckets.filter(([le]) => !Number.isNaN(le)).sort((x, y) => x[0] - y[0]);
  if (b.length < 2 || b[b.length - 1]![0] !== Infinity) return null;
  const cum: number[] = [];
  for (const [, r] of b) cum.push(Math.max(r, cum.length ? cum[cum.length - 1]! : 0));
  const total = cum[cum.length - 1]!;
  if (total <= 0) return null;
  const rank = q * total;
  const i = cum.findIndex((c) => c >= rank);
  if (i === b.length - 1) return b[b.length - 2]![0];
  const lo = i === 0 ? 0 : b[i - 1]![0];
  const below = i === 0 ? 0 : cum[i - 1]!;
  const span = cum[i]! - below;
  return span === 0 ? null : lo + (b[i]![0] - lo) * ((rank - below) / span);
}

/** The names a metric rule reads from `metrics`. */
export function metricNames(m: TAlertMetric): string[] {
  if (m.fn === 'quantile') return [`${m.name}_bucket`];
  if (m.fn === 'ratio') return [...new Set([m.name, ...(m.per ?? [])])];
  return [m.name];
}

/** One value from rows of one subject (a node, or the whole cluster), before scaling. */
function valueOf(m: TAlertMetric, rows: TAlertMetricRow[]): number | null {
  const rateOf = (name: string) => {
    let sum: number | null = null;
    for (const r of rows) if (r.name === name && r.rate !== null) sum = (sum ?? 0) + r.rate;
    return sum;
  };
  switch (m.fn) {
    case 'gauge': {
      const xs = rows.filter((r) => r.name === m.name);
      return xs.length ? xs.reduce((a, r) => a + r.gauge, 0) : null;
    }
    case 'rate':
      return rateOf(m.name);
    case 'quantile': {
      const byLe = new Map<number, number>();
      for (const r of rows)
        if (r.name === `${m.name}_bucket` && r.le !== '' && r.rate !== null) {
          const le = parseLe(r.le);
          byLe.set(le, (byLe.get(le) ?? 0) + r.rate);
        }
      return histogramQuantile(m.quantile ?? 0.99, [...byLe]);
    }
    case 'ratio': {
      const num = rateOf(m.name);
      let den = 0;
      for (const n of new Set(m.per ?? [])) den += rateOf(n) ?? 0;
      return num === null || den <= 0 ? null : (100 * num) / den;
    }
  }
}

/**
 * A metric rule's samples in one cluster: one per node, or — for quantile and ratio rules aggregated
 * with sum/avg — one for the cluster computed over every node's series together (the cluster's p99 is
 * not the sum or mean of node p99s). `merged` tells the caller not to aggregate again.
 */
export function metricSamples(
  m: TAlertMetric,
  rows: TAlertMetricRow[],
  aggregation: TAggregation,
): { samples: TSample[]; merged: boolean } {
  const scaled = (v: number | null) => (v === null ? null : v * m.scale);
  if ((m.fn === 'quantile' || m.fn === 'ratio') && (aggregation === 'sum' || aggregation === 'avg')) {
    const v = scaled(valueOf(m, rows));
    return { samples: v === null ? [] : [{ key: '', labels: {}, value: v, stale: false }], merged: true };
  }
  const byNode = new Map<number, TAlertMetricRow[]>();
  for (const r of rows) byNode.set(r.node_id, [...(byNode.get(r.node_id) ?? []), r]);
  const samples: TSample[] = [];
  for (const [node, rs] of [...byNode].sort((a, b) => a[0] - b[0])) {
    // No value (no readings in the window) is no sample: the instance stays as it was (unknown).
    const v = scaled(valueOf(m, rs));
    if (v !== null)
      samples.push({ key: `node=${node}`, labels: { node: String(node) }, value: v, stale: false });
  }
  return { samples, merged: false };
}
