/**
 * Pure option inputs for the database panels (DbCharts.svelte): TTimeChart values for the shared
 * ChartPanel / buildTimeOption, from the `db` view-model (Prometheus metrics from /_status/vars).
 */
import type { TDbCharts } from '@clusterscope/schema';
import { colorOf, type TLine, type TSeriesIn, type TTimeChart, type TUnit } from './options';

/** Fixed colours for named lines (statement types, quantiles, outcomes, capacity). */
const NAMED: Record<string, string> = {
  select: '#2563eb',
  insert: '#16a34a',
  update: '#d97706',
  delete: '#9333ea',
  p50: '#0891b2',
  p99: '#dc2626',
  commits: '#16a34a',
  aborts: '#dc2626',
  capacity: '#64748b',
  used: '#2563eb',
  available: '#16a34a',
};

const lines = (xs: readonly TSeriesIn[]): TLine[] =>
  xs.map((s, i) => ({ name: s.name, data: s.data, color: NAMED[s.name] ?? colorOf(s, i) }));

const chart = (db: TDbCharts, xs: readonly TSeriesIn[], unit: TUnit, yMax?: number): TTimeChart => ({
  unit,
  from: db.from,
  to: db.to,
  lines: lines(xs),
  ...(yMax === undefined ? {} : { yMax }),
});

/** True when any panel has a point: otherwise the page says which input to enable. */
export const hasDbData = (db: TDbCharts): boolean =>
  [
    db.statements,
    db.latency,
    db.transactions,
    db.connections,
    db.capacity,
    db.live_bytes,
    db.cpu,
    db.rss,
    db.replicas,
    db.leaseholders,
  ].some((xs) => xs.some((s) => s.data.some((p) => p[1] !== null)));

export const statementsChart = (db: TDbCharts) => chart(db, db.statements, 'count');
export const latencyChart = (db: TDbCharts) => chart(db, db.latency, 'count');
export const transactionsChart = (db: TDbCharts) => chart(db, db.transactions, 'count');
export const connectionsChart = (db: TDbCharts) => chart(db, db.connections, 'count');
export const capacityChart = (db: TDbCharts) => chart(db, db.capacity, 'bytes');
export const capacityRatioChart = (db: TDbCharts) => chart(db, db.capacity_used_ratio, 'ratio', 1);
export const liveBytesChart = (db: TDbCharts) => chart(db, db.live_bytes, 'bytes');
export const processCpuChart = (db: TDbCharts) => chart(db, db.cpu, 'ratio', 1);
export const rssChart = (db: TDbCharts) => chart(db, db.rss, 'bytes');
export const replicasChart = (db: TDbCharts) => chart(db, db.replicas, 'count');
export const leaseholdersMetricChart = (db: TDbCharts) => chart(db, db.leaseholders, 'count');

/** Epoch-ms points as seconds since `fromMs` (the run page's elapsed axis); null values dropped. */
export const toElapsed = (points: readonly [number, number | null][], fromMs: number): [number, number][] =>
  points.flatMap(([t, v]): [number, number][] => (v === null ? [] : [[Math.max(0, (t - fromMs) / 1000), v]]));

/** The client's throughput and p99 (ms) series of a run, by the names the parsers give them. */
export function pickClientSeries(series: Record<string, [number, number | null][]>): {
  throughput: [string, [number, number | null][]] | null;
  p99: [string, [number, number | null][]] | null;
} {
  const names = Object.keys(series);
  const pick = (re: RegExp) => {
    const n = names.find((x) => re.test(x));
    return n === undefined ? null : ([n, series[n]] as [string, [number, number | null][]]);
  };
  return {
    throughput: pick(/^(tps|qps|ops_per_s|rps|events_per_s|tpmC)$|\.ops_per_s$|_per_s$/),
    p99: pick(/(^|_)p99(_ms)?$|lat_p99_ms$/),
  };
}

const lastValue = (s: TSeriesIn | undefined): number | null => {
  for (let i = (s?.data.length ?? 0) - 1; i >= 0; i--) if (s!.data[i][1] !== null) return s!.data[i][1];
  return null;
};

/** The newest statements/s (all types) and service latency p50/p99 (ms), for the panel heading. */
export function latestDb(db: TDbCharts): {
  statements: number | null;
  p50: number | null;
  p99: number | null;
} {
  const last = db.statements.map(lastValue).filter((v): v is number => v !== null);
  return {
    statements: last.length ? last.reduce((a, v) => a + v, 0) : null,
    p50: lastValue(db.latency.find((s) => s.name === 'p50')),
    p99: lastValue(db.latency.find((s) => s.name === 'p99')),
  };
}
