/**
 * Pure ECharts option builders for the health dashboard. No DOM, no ECharts import: they return plain
 * option objects that the `echartsAction` applies, so they are unit-tested directly.
 */
import type { EChartsCoreOption } from 'echarts/core';
import type { TChartSeries, TClusterCharts } from '@clusterscope/schema';
import { bytes } from '../format';

export type TUnit = 'count' | 'cores' | 'bytes' | 'ratio' | 'Bps';
export type TPoint = [number, number | null];

/** A series as the dashboard procedures return it. */
export type TSeriesIn = TChartSeries;

export interface TLine {
  name: string;
  data: TPoint[];
  color?: string;
  dashed?: boolean;
  area?: boolean;
  /** Draws steps (state-like counts). */
  step?: boolean;
}

export interface TMarker {
  ts: number;
  label: string;
  tone?: 'bad' | 'warn' | 'ok';
}

export interface TTimeChart {
  lines: TLine[];
  unit: TUnit;
  from: number;
  to: number;
  markers?: TMarker[];
  /** Fixed y max (e.g. 1 for ratios); default: auto. */
  yMax?: number;
}

/** Node colours: the same node has the same colour on every chart. */
export const PALETTE = [
  '#2563eb', '#16a34a', '#d97706', '#9333ea', '#0891b2',
  '#db2777', '#65a30d', '#ea580c', '#4f46e5', '#0d9488',
]; // prettier-ignore
/** Above this many markers a chart draws their lines without labels. */
export const MAX_MARKER_LABELS = 6;
const TONE = { bad: '#dc2626', warn: '#d97706', ok: '#16a34a' } as const;

export const colorOf = (s: { node_id: number | null; name: string }, i = 0): string =>
  PALETTE[((s.node_id ?? i + 1) - 1 + PALETTE.length) % PALETTE.length];

/** A value with its unit, for tooltips and axis labels. */
export function formatValue(v: number | null | undefined, unit: TUnit): string {
  if (v == null || !Number.isFinite(v)) return '—';
  switch (unit) {
    case 'count':
      return Math.abs(v) >= 100 || Number.isInteger(v) ? Math.round(v).toLocaleString('en-US') : v.toFixed(1);
    case 'cores':
      return `${v.toFixed(Math.abs(v) >= 10 ? 1 : 2)} cores`;
    case 'ratio':
      return `${(v * 100).toFixed(Math.abs(v) >= 0.1 ? 0 : 1)}%`;
    case 'bytes':
      return bytes(v);
    case 'Bps':
      return `${bytes(v)}/s`;
  }
}

/** True when at least one line has a non-null point. */
export const hasData = (lines: readonly { data: readonly TPoint[] }[]): boolean =>
  lines.some((l) => l.data.some((p) => p[1] !== null));

/**
 * Limit lines: when every series has the same single limit value, one dashed "limit" line across the
 * window; otherwise one dashed line per series ("n3 limit"). Series without a limit (null) are dropped.
 */
export function limitLines(limits: readonly TSeriesIn[], from: number, to: number, label = 'limit'): TLine[] {
  const withLimit = limits.filter((s) => s.data.some((p) => p[1] !== null));
  if (withLimit.length === 0) return [];
  const values = new Set(withLimit.flatMap((s) => s.data.filter((p) => p[1] !== null).map((p) => p[1])));
  if (values.size === 1) {
    const v = [...values][0];
    return [
      {
        name: label,
        data: [
          [from, v],
          [to, v],
        ],
        color: TONE.bad,
        dashed: true,
      },
    ];
  }
  return withLimit.map((s, i) => ({
    name: `${s.name} ${label}`,
    data: s.data,
    color: colorOf(s, i),
    dashed: true,
    step: true,
  }));
}

/** The shared time chart: x = time, one line per series, tooltips and axis labels in `unit`. */
export function buildTimeOption(c: TTimeChart): EChartsCoreOption {
  const fmt = (v: unknown) => formatValue(typeof v === 'number' ? v : null, c.unit);
  const markers = c.markers ?? [];
  const series: Record<string, unknown>[] = c.lines.map((l) => ({
    type: 'line',
    name: l.name,
    data: l.data,
    showSymbol: false,
    connectNulls: false,
    step: l.step ? 'end' : false,
    sampling: 'lttb',
    lineStyle: { width: 1.5, type: l.dashed ? 'dashed' : 'solid' },
    itemStyle: l.color ? { color: l.color } : undefined,
    areaStyle: l.area ? { opacity: 0.15 } : undefined,
    emphasis: { focus: 'series' },
  }));
  if (markers.length > 0 && series.length > 0) {
    series[0].markLine = {
      symbol: 'none',
      silent: true,
      animation: false,
      // Many transitions: lines only (labels would overlap); the events list names them.
      label: {
        show: markers.length <= MAX_MARKER_LABELS,
        formatter: '{b}',
        fontSize: 10,
        position: 'insideEndTop',
      },
      data: markers.map((m) => ({
        name: m.label,
        xAxis: m.ts,
        lineStyle: { color: TONE[m.tone ?? 'warn'], type: 'dotted' },
      })),
    };
  }
  return {
    backgroundColor: 'transparent',
    animation: false,
    grid: { left: 8, right: 12, top: 28, bottom: 24, containLabel: true },
    legend: { type: 'scroll', top: 0, left: 0, itemWidth: 14, itemHeight: 8, textStyle: { fontSize: 11 } },
    tooltip: {
      trigger: 'axis',
      confine: true,
      valueFormatter: fmt,
      axisPointer: { type: 'line' },
    },
    xAxis: { type: 'time', min: c.from, max: c.to, axisLabel: { hideOverlap: true } },
    yAxis: {
      type: 'value',
      min: 0,
      max: c.yMax,
      axisLabel: { formatter: (v: number) => fmt(v) },
      splitLine: { lineStyle: { opacity: 0.4 } },
    },
    series,
  };
}

/** Inputs the health charts read (the dashboard's chart view-model; io limits optional). */
export type TChartsIn = Omit<TClusterCharts, 'resolution' | 'step_ms' | 'io_read_limit' | 'io_write_limit'> &
  Partial<Pick<TClusterCharts, 'io_read_limit' | 'io_write_limit'>>;

const perNode = (xs: readonly TSeriesIn[], suffix = ''): TLine[] =>
  xs.map((s, i) => ({ name: `${s.name}${suffix}`, data: s.data, color: colorOf(s, i) }));

/** Under-replicated and unavailable ranges (cluster totals) with liveness transitions as markers. */
export function rangesChart(c: TChartsIn, markers: TMarker[] = []): TTimeChart {
  return {
    unit: 'count',
    from: c.from,
    to: c.to,
    markers,
    lines: [
      { name: 'under-replicated', data: c.ranges_underreplicated, color: TONE.warn, step: true, area: true },
      { name: 'unavailable', data: c.ranges_unavailable, color: TONE.bad, step: true, area: true },
    ],
  };
}

export const leaseholdersChart = (c: TChartsIn): TTimeChart => ({
  unit: 'count',
  from: c.from,
  to: c.to,
  lines: perNode(c.leaseholders),
});

export const cpuChart = (c: TChartsIn): TTimeChart => ({
  unit: 'cores',
  from: c.from,
  to: c.to,
  lines: [...perNode(c.cpu), ...limitLines(c.cpu_limit, c.from, c.to)],
});

export const throttleChart = (c: TChartsIn): TTimeChart => ({
  unit: 'ratio',
  from: c.from,
  to: c.to,
  lines: perNode(c.throttled),
});

export const memoryChart = (c: TChartsIn): TTimeChart => ({
  unit: 'bytes',
  from: c.from,
  to: c.to,
  lines: [...perNode(c.mem), ...limitLines(c.mem_limit, c.from, c.to)],
});

/** Read + write throughput per node, with io.max limits as dashed lines when a node has one. */
export function ioChart(c: TChartsIn): TTimeChart {
  const write = c.io_write.map((s, i) => ({
    name: `${s.name} write`,
    data: s.data,
    color: colorOf(s, i),
  }));
  const read = c.io_read.map((s, i) => ({
    name: `${s.name} read`,
    data: s.data,
    color: colorOf(s, i),
    dashed: true,
  }));
  const limits = [
    ...limitLines(c.io_write_limit ?? [], c.from, c.to, 'write limit'),
    ...limitLines(c.io_read_limit ?? [], c.from, c.to, 'read limit'),
  ];
  return { unit: 'Bps', from: c.from, to: c.to, lines: [...write, ...read, ...limits] };
}

/** Liveness transitions as chart markers: to DEAD/UNAVAILABLE is bad, back to LIVE is ok. */
export function eventMarkers(events: readonly { ts: number; node_id: number; to: string }[]): TMarker[] {
  return events.slice(0, 50).map((e) => ({
    ts: e.ts,
    label: `n${e.node_id} ${e.to}`,
    tone: e.to === 'LIVE' ? 'ok' : e.to === 'DEAD' || e.to === 'UNAVAILABLE' ? 'bad' : 'warn',
  }));
}
