import { describe, expect, it } from 'vitest';
import type { TAlertMetricRow } from '@clusterscope/tsdb';
import { ZAlertMetric } from '@clusterscope/schema';
import { histogramQuantile, metricFetchKey, metricNames, metricSamples } from './metric-values';

const row = (node: number, name: string, rate: number | null, le = '', gauge = 0): TAlertMetricRow => ({
  org_id: 'o',
  cluster_id: 'c',
  name,
  node_id: node,
  le,
  rate,
  gauge,
});
const spec = (m: unknown) => ZAlertMetric.parse(m);

describe('histogramQuantile', () => {
  it('interpolates inside the bucket holding the rank, from 0 below the first bound', () => {
    const b: [number, number][] = [
      [1000, 10],
      [2000, 30],
      [4000, 90],
      [Infinity, 100],
    ];
    expect(histogramQuantile(0.5, b)).toBeCloseTo(2000 + 2000 * (20 / 60));
    expect(histogramQuantile(0.05, b)).toBeCloseTo(500);
    // A rank in +Inf answers the highest finite bound.
    expect(histogramQuantile(0.99, b)).toBe(4000);
  });
  it('has no answer without observations or without a +Inf bucket', () => {
    expect(histogramQuantile(0.5, [[1000, 0], [Infinity, 0]])).toBeNull(); // prettier-ignore
    expect(histogramQuantile(0.5, [[1000, 5], [2000, 9]])).toBeNull(); // prettier-ignore
  });
});

describe('metricSamples', () => {
  const rows = [
    row(1, 'lat_bucket', 10, '100'),
    row(1, 'lat_bucket', 100, '+Inf'),
    row(2, 'lat_bucket', 100, '100'),
    row(2, 'lat_bucket', 100, '+Inf'),
    row(1, 'aborts', 3),
    row(1, 'commits', 7),
    row(2, 'aborts', 0),
    row(2, 'commits', null),
  ];
  it('gives one sample per node (quantile per node, × scale)', () => {
    const m = spec({ name: 'lat', fn: 'quantile', quantile: 0.5, scale: 2 });
    const { samples, merged } = metricSamples(m, rows, 'node');
    expect(merged).toBe(false);
    // node 1: rank 50 in (100, +Inf] → 100; node 2: rank 50 of 100 in (0, 100] → 50.
    expect(samples.map((s) => [s.key, s.value])).toEqual([
      ['node=1', 200],
      ['node=2', 100],
    ]);
  });
  it('merges every node for a cluster quantile/ratio under sum/avg', () => {
    const q = metricSamples(spec({ name: 'lat', fn: 'quantile', quantile: 0.5 }), rows, 'avg');
    expect(q.merged).toBe(true);
    // buckets summed: 110 ≤ 100, 200 total → rank 100 in (0, 100] → 100 × 100/110.
    expect(q.samples[0]!.value).toBeCloseTo(10000 / 110);
    const r = metricSamples(spec({ name: 'aborts', fn: 'ratio', per: ['commits', 'aborts'] }), rows, 'sum');
    expect(r.samples[0]!.value).toBeCloseTo((100 * 3) / 10);
  });
  it('leaves out nodes without a value (unknown), never reads them as 0', () => {
    const r = metricSamples(spec({ name: 'commits', fn: 'rate' }), rows, 'node');
    expect(r.samples.map((s) => s.key)).toEqual(['node=1']);
    expect(metricSamples(spec({ name: 'none', fn: 'gauge' }), rows, 'max').samples).toEqual([]);
  });
  it('shares one fetch between rules with the same matchers and window', () => {
    const a = spec({ name: 'aborts', fn: 'rate' });
    const b = spec({ name: 'lat', fn: 'quantile', quantile: 0.9 });
    expect(metricFetchKey(a)).toBe(metricFetchKey(b));
    expect(metricFetchKey(a)).not.toBe(metricFetchKey(spec({ ...a, matchers: { app: 'x' } })));
    expect(metricNames(b)).toEqual(['lat_bucket']);
  });
});

describe('ZAlertMetric', () => {
  it('names the field that is wrong', () => {
    const issue = (m: unknown) => {
      const r = ZAlertMetric.safeParse(m);
      return r.success ? null : `${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message}`;
    };
    expect(issue({ name: 'x', fn: 'quantile' })).toBe('quantile: required for fn quantile');
    expect(issue({ name: 'x', fn: 'rate', per: ['y'] })).toBe('per: only for fn ratio');
    expect(issue({ name: 'bad name', fn: 'rate' })).toMatch(/^name: /);
    expect(issue({ name: 'x', fn: 'rate', windowS: 5 })).toMatch(/^windowS: /);
    expect(issue({ name: 'x', fn: 'rate' })).toBeNull();
  });
});
