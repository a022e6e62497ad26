import type { TMetricSample, TSample } from '@clusterscope/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TTsdb } from '../client';
import { openTempClickHouse } from '../testing';
import { createWriter, type TWriter } from '../writer';
import {
  getCounterRates,
  getGaugeSeries,
  getHistogramQuantiles,
  hasMetrics,
  metricStepMs,
  type TMetricPoint,
} from './metrics';

let ch: TTsdb;
let cleanup: () => Promise<void>;

const S = 10_000;
// Hour-aligned, three hours ago: inside every TTL, and all readings fall in one 1 h bucket.
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 3_600_000;
const ORG = 'org-m';
const C = 'c1';

const m = (
  k: number,
  node: number,
  name: string,
  value: number,
  labels: Record<string, string> = {},
  type: TMetricSample['type'] = 'counter',
): TMetricSample => ({
  kind: 'metric',
  ts: T0 + k * S,
  node_id: node,
  host: `h${node}`,
  name,
  type,
  labels,
  value,
});

/** sql_select_count on node 1: 0.6/s, reset at k = 15 (to 3), then 0.6/s again. */
const select1 = (k: number) => (k < 15 ? 6 * k : 6 * (k - 15) + 3);
/** Latency buckets of node 1 per 10 s: 10 in (0,1000], 20 in (1000,2000], 60 in (2000,4000], 10 above. */
const LAT1: [string, number][] = [
  ['1000', 10],
  ['2000', 30],
  ['4000', 90],
  ['+Inf', 100],
];
/** Node 2: all 100 observations per 10 s at or under 1000. */
const LAT2: [string, number][] = [
  ['1000', 100],
  ['2000', 100],
  ['4000', 100],
  ['+Inf', 100],
];

/** Every reading k = 0..29 of the cluster, one batch per scrape (so the rollups merge many states). */
function scrape(k: number): TSample[] {
  const out: TSample[] = [
    m(k, 1, 'sql_select_count', select1(k), { node_id: '1' }),
    m(k, 2, 'sql_select_count', 10 * k, { store: '1' }),
    m(k, 2, 'sql_select_count', 20 * k, { store: '2' }),
    m(k, 1, 'sql_conns', k % 2 === 0 ? 10 : 20, {}, 'gauge'),
    m(k, 2, 'sql_conns', 7, {}, 'gauge'),
    ...LAT1.map(([le, n]) => m(k, 1, 'sql_service_latency_bucket', n * k, { le }, 'histogram')),
    ...LAT2.map(([le, n]) => m(k, 2, 'sql_service_latency_bucket', n * k, { le }, 'histogram')),
    m(k, 1, 'sql_service_latency_sum', 1e5 * k, {}, 'histogram'),
  ];
  // Reset exactly at a minute boundary: 100..130 in minute 0, then 2..32 in minute 1.
  if (k < 12) out.push(m(k, 1, 'sql_insert_count', k < 6 ? 100 + 6 * k : 6 * (k - 6) + 2));
  return out;
}

let writer: TWriter;
beforeAll(async () => {
  ({ ch, cleanup } = await openTempClickHouse());
  writer = createWriter(ch);
  for (let k = 0; k < 30; k++) await writer.write(ORG, C, `b-${k}`, scrape(k));
  // Two batches whose readings interleave in time (late delivery): 0.6/s throughout.
  const upd = (ks: number[]) => ks.map((k) => m(k, 1, 'sql_update_count', 6 * k));
  await writer.write(ORG, C, 'late-a', upd([0, 2, 4]));
  await writer.write(ORG, C, 'late-b', upd([1, 3, 5]));
  // Another org's series with the same cluster, node and name: never read for ORG.
  await writer.write(
    'org-x',
    C,
    'x-1',
    [0, 1, 2].map((k) => m(k, 1, 'sql_select_count', 1e6 * k)),
  );
}, 120_000);
afterAll(async () => {
  await writer.close();
  await cleanup();
});

const byNode = (pts: TMetricPoint[], name: string, node: number) =>
  pts.filter((p) => p.name === name && p.node_id === node).map((p) => [(p.ts - T0) / 1000, round(p.value)]);
const round = (x: number | null) => (x === null ? null : Math.round(x * 1e6) / 1e6);
const win = (resolution: 'raw' | '1m' | '1h', stepMs: number, to = T0 + 300_000) => ({
  orgId: ORG,
  clusterId: C,
  from: T0,
  to,
  resolution,
  stepMs,
});

describe('counter rates (PromQL rate, reset-safe)', () => {
  it('raw: per 20 s step; a reset counts the new reading in full; stores of a node are summed', async () => {
    const pts = await getCounterRates(ch, { ...win('raw', 20_000), names: ['sql_select_count'] });
    // Step 0 has one increase (k = 1; k = 0 has no earlier reading): 6 / 10 s. Step 7 holds k = 14
    // (+6) and the reset k = 15 (+3, the new reading): 9 / 20 s.
    expect(byNode(pts, 'sql_select_count', 1)).toEqual(
      Array.from({ length: 15 }, (_, j) => [j * 20, j === 7 ? 0.45 : 0.6]),
    );
    // 1/s + 2/s.
    expect(byNode(pts, 'sql_select_count', 2)).toEqual(Array.from({ length: 15 }, (_, j) => [j * 20, 3]));
  });

  it('1 m rollup: a reset inside a bucket and one at a bucket boundary', async () => {
    const pts = await getCounterRates(ch, {
      ...win('1m', 60_000),
      names: ['sql_select_count', 'sql_insert_count'],
    });
    // Minute 2 (k = 12..17: 72, 78, 84, 3, 9, 15): (84 - 72) + 15 inside, + 6 from minute 1's 66.
    expect(byNode(pts, 'sql_select_count', 1)).toEqual([
      [0, 0.6], // 30 over the 50 s between its first and last reading
      [60, 0.6],
      [120, 0.55], // 33 / 60
      [180, 0.6],
      [240, 0.6],
    ]);
    expect(byNode(pts, 'sql_select_count', 2)).toEqual([0, 60, 120, 180, 240].map((t) => [t, 3]));
    // Minute 1 starts at 2 after 130: the 2 count (reset), then 30 more, over 60 s.
    expect(byNode(pts, 'sql_insert_count', 1)).toEqual([
      [0, 0.6],
      [60, round(32 / 60)],
    ]);
  });

  it('1 h rollup: one bucket; a reset inside it loses only the counts before the next reading', async () => {
    const pts = await getCounterRates(ch, {
      ...win('1h', 3_600_000, T0 + 3_600_000),
      names: ['sql_select_count'],
    });
    // 14 × 6 before the reset, 14 × 6 after it (the 3 counted before the reading at k = 15 are lost),
    // over the 290 s between the first and the last reading.
    expect(byNode(pts, 'sql_select_count', 1)).toEqual([[0, round(168 / 290)]]);
  });

  it('rollups stay right when batches interleave in time', async () => {
    const pts = await getCounterRates(ch, { ...win('1m', 60_000), names: ['sql_update_count'] });
    expect(byNode(pts, 'sql_update_count', 1)).toEqual([[0, 0.6]]);
  });

  it('one node, another org, a window after the data', async () => {
    const one = await getCounterRates(ch, { ...win('raw', 20_000), nodeId: 2, names: ['sql_select_count'] });
    expect(new Set(one.map((p) => p.node_id))).toEqual(new Set([2]));
    const other = await getCounterRates(ch, {
      ...win('raw', 20_000),
      orgId: 'org-x',
      names: ['sql_select_count'],
    });
    expect(byNode(other, 'sql_select_count', 1)).toEqual([
      [0, 1e5],
      [20, 1e5],
    ]);
    const later = await getCounterRates(ch, {
      ...win('raw', 20_000, T0 + 900_000),
      from: T0 + 600_000,
      names: ['sql_select_count'],
    });
    expect(later).toEqual([]);
  });
});

describe('whole window (a benchmark run)', () => {
  it('one point at `from`: every increase after it, the reading before it as the base', async () => {
    const w = { ...win('raw', 0), from: T0 + 5_000, whole: true };
    const pts = await getCounterRates(ch, { ...w, nodeId: 1, names: ['sql_select_count'] });
    // k = 1..29 all count (k = 0 at T0 is the base): 14 × 6 + 3 + 14 × 6 over 290 s.
    expect(pts.map((p) => [p.ts - T0, round(p.value)])).toEqual([[5_000, round(171 / 290)]]);
    const lat = await getHistogramQuantiles(ch, {
      ...w,
      nodeId: 1,
      family: 'sql_service_latency',
      quantiles: [0.5],
    });
    expect(lat.map((p) => [p.ts - T0, ...p.values.map(round)])).toEqual([[5_000, round(2000 + 4000 / 6)]]);
  });
});

/** Each resolution the gauge and quantile cases run at, with its step (ms). */
const RAW_AND_1M = [
  ['raw', 20_000],
  ['1m', 60_000],
] as const;

describe('gauges', () => {
  it('mean per step per series, raw and 1 m', async () => {
    for (const [r, step] of RAW_AND_1M) {
      const pts = await getGaugeSeries(ch, { ...win(r, step), names: ['sql_conns'] });
      const n = 300_000 / step;
      expect(byNode(pts, 'sql_conns', 1)).toEqual(
        Array.from({ length: n }, (_, j) => [(j * step) / 1000, 15]),
      );
      expect(byNode(pts, 'sql_conns', 2)).toEqual(
        Array.from({ length: n }, (_, j) => [(j * step) / 1000, 7]),
      );
    }
  });
});

describe('histogram_quantile over rate', () => {
  // Node 1 rates per s: le=1000: 1, 2000: 3, 4000: 9, +Inf: 10.
  // p50: rank 5 falls in (2000, 4000]: 2000 + 2000 × (5 - 3) / (9 - 3). p99: rank 9.9 is in +Inf: 4000.
  // p05: rank 0.5 in the first bucket: 1000 × 0.5 / 1.
  it('one node, raw and 1 m', async () => {
    for (const [r, step] of RAW_AND_1M) {
      const pts = await getHistogramQuantiles(ch, {
        ...win(r, step),
        nodeId: 1,
        family: 'sql_service_latency',
        quantiles: [0.5, 0.99, 0.05],
      });
      expect(pts.length).toBe(300_000 / step);
      for (const p of pts) expect(p.values.map(round)).toEqual([round(2000 + (2000 * 2) / 6), 4000, 500]);
    }
  });

  it('the cluster: bucket rates summed over nodes (sum by (le)), 1 h rollup', async () => {
    // le=1000: 1 + 10, 2000: 3 + 10, 4000: 9 + 10, +Inf: 20. p50: rank 10 in the first bucket:
    // 1000 × 10 / 11. p90: rank 18 in (2000, 4000]: 2000 + 2000 × (18 - 13) / (19 - 13).
    const pts = await getHistogramQuantiles(ch, {
      ...win('1h', 3_600_000, T0 + 3_600_000),
      family: 'sql_service_latency',
      quantiles: [0.5, 0.9],
    });
    expect(pts.map((p) => [p.ts - T0, ...p.values.map(round)])).toEqual([
      [0, round(10_000 / 11), round(2000 + (2000 * 5) / 6)],
    ]);
  });

  it('no observations in a step gives null, not a made-up value', async () => {
    await writer.write(ORG, 'c-idle', 'idle', [
      ...LAT1.map(([le]) => m(0, 1, 'sql_service_latency_bucket', 5, { le }, 'histogram')),
      ...LAT1.map(([le]) => m(1, 1, 'sql_service_latency_bucket', 5, { le }, 'histogram')),
    ]);
    const pts = await getHistogramQuantiles(ch, {
      ...win('raw', 20_000),
      clusterId: 'c-idle',
      family: 'sql_service_latency',
      quantiles: [0.99],
    });
    expect(pts).toEqual([{ ts: T0, values: [null] }]);
  });
});

describe('hasMetrics', () => {
  it('finds readings of the org and cluster in the window at each resolution, none elsewhere', async () => {
    for (const r of ['raw', '1m', '1h'] as const) expect(await hasMetrics(ch, win(r, 0)), r).toBe(true);
    // A 1 h bucket that starts before the window holds readings inside it.
    expect(await hasMetrics(ch, { ...win('1h', 0), from: T0 + 120_000 })).toBe(true);
    expect(await hasMetrics(ch, { ...win('raw', 0), clusterId: 'c2' })).toBe(false);
    expect(await hasMetrics(ch, { ...win('raw', 0), orgId: 'org-y' })).toBe(false);
    expect(await hasMetrics(ch, { ...win('raw', 0, T0 + 900_000), from: T0 + 600_000 })).toBe(false);
  });
});

describe('metricStepMs', () => {
  it('raw: the scrape interval or wider to stay under maxPoints; rollups: the chart step', () => {
    expect(metricStepMs('raw', 0, 3_600_000)).toBe(10_000);
    expect(metricStepMs('raw', 0, 6 * 3_600_000)).toBe(60_000);
    expect(metricStepMs('raw', 0, 3_600_000, 500, 30_000)).toBe(30_000);
    expect(metricStepMs('1m', 0, 2 * 86_400_000)).toBe(10 * 60_000);
  });
});
