import type { TDbCharts } from '@clusterscope/schema';
import { describe, expect, it } from 'vitest';
import {
  capacityRatioChart,
  hasDbData,
  latencyChart,
  latestDb,
  pickClientSeries,
  processCpuChart,
  statementsChart,
  toElapsed,
} from './db-options';
import { buildTimeOption, PALETTE } from './options';

const F = 1_000_000;
const empty: TDbCharts = {
  from: F,
  to: F + 60_000,
  step_ms: 30_000,
  tenants: [],
  statements: [],
  latency: [],
  transactions: [],
  connections: [],
  capacity: [],
  capacity_used_ratio: [],
  live_bytes: [],
  cpu: [],
  rss: [],
  replicas: [],
  leaseholders: [],
};
const series = (name: string, node_id: number | null, v: number | null) => ({
  name,
  node_id,
  data: [[F, v]] as [number, number | null][],
});

describe('database panels', () => {
  it('has no data while every series is empty or null (the empty state names the input)', () => {
    expect(hasDbData(empty)).toBe(false);
    expect(hasDbData({ ...empty, latency: [series('p99', null, null)] })).toBe(false);
    expect(hasDbData({ ...empty, cpu: [series('n1', 1, 0.2)] })).toBe(true);
  });

  it('gives statement types and quantiles fixed colours, nodes their node colour', () => {
    const db = {
      ...empty,
      statements: [series('select', null, 120), series('delete', null, 3)],
      latency: [series('p50', null, 1.2), series('p99', null, 9.5)],
      cpu: [series('n3', 3, 0.4)],
    };
    expect(statementsChart(db).lines.map((l) => [l.name, l.color])).toEqual([
      ['select', '#2563eb'],
      ['delete', '#9333ea'],
    ]);
    expect(latencyChart(db).lines.map((l) => l.color)).toEqual(['#0891b2', '#dc2626']);
    expect(processCpuChart(db).lines[0].color).toBe(PALETTE[2]);
  });

  it('draws ratios on a 0–100 % axis', () => {
    const db = { ...empty, capacity_used_ratio: [series('used', null, 0.25)] };
    const c = capacityRatioChart(db);
    expect([c.unit, c.yMax]).toEqual(['ratio', 1]);
    const opt = buildTimeOption(c) as { yAxis: { max?: number } };
    expect(opt.yAxis.max).toBe(1);
  });
});

describe('run page: database beside the client', () => {
  it('puts database points on the run elapsed axis and finds the client series', () => {
    expect(toElapsed([[F + 30_000, 5], [F + 60_000, null], [F - 1000, 1]], F)).toEqual([[30, 5], [0, 1]]); // prettier-ignore
    const c = pickClientSeries({
      lat_p50_ms: [[1, 2]],
      tps: [[1, 100]],
      lat_p99_ms: [[1, 9]],
      errors: [[1, 0]],
    });
    expect([c.throughput?.[0], c.p99?.[0]]).toEqual(['tps', 'lat_p99_ms']);
    expect(pickClientSeries({}).throughput).toBeNull();
  });
});

describe('latestDb', () => {
  it('sums the newest statement rates and takes the newest non-null quantiles', () => {
    const two = (name: string, a: number | null, b: number | null) => ({
      name,
      node_id: null,
      data: [
        [F, a],
        [F + 30_000, b],
      ] as [number, number | null][],
    });
    const db = {
      ...empty,
      statements: [two('select', 100, 120), two('insert', 5, 6)],
      latency: [two('p50', 1.5, null), two('p99', 9, 12)],
    };
    expect(latestDb(db)).toEqual({ statements: 126, p50: 1.5, p99: 12 });
    expect(latestDb(empty)).toEqual({ statements: null, p50: null, p99: null });
  });
});
