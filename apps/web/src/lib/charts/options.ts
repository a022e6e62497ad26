/**
 * Pure ECharts option builders for the health dashboard. No DOM, no ECharts import: they return plain
 * option objects that the `echartsAction` applies, so they are unit-tested directly.
 */
import type { EChartsCoreOption } from 'echarts/core';
import type { TChartSeries, TClusterCharts } from '@clusterscope/schema';
import { bytes } from '../format';
import { byteAxis, isOffScale, timeAxisLabels, valueAxis } from './axes';

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
  /** limit: thick long-dash line with its value at the end; read: dotted (writes are solid). */
  role?: 'limit' | 'read';
}

export interface TBand {
  from: number;
  to: number | null;
  label: string;
  tone?: 'bad' | 'warn';
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
  /** Shaded time spans (an alert's pending and firing windows); `to` null = up to the window's end. */
  bands?: TBand[];
  /** Fixed y max (e.g. 1 for ratios); default: round ticks over the visible lines. */
  yMax?: number;
}

export interface TTimeOptionOpts {
  /** Axis and tooltip times in UTC (else the browser's zone). */
  utc?: boolean;
  /** Lines left out (toggled off in the legend); default: limits far above the data (defaultHidden). */
  hidden?: ReadonlySet<string>;
  /** The panel lets a drag select a time range (handled by echarts.action onRange). */
  zoom?: boolean;
}

/** Node colours: the same node has the same colour on every chart. */
export const PALETTE = [
  '#2563eb', '#16a34a', '#d97706', '#9333ea', '#0891b2',
  '#db2777', '#65a30d', '#ea580c', '#4f46e5', '#0d9488',
]; // prettier-ignore
/** Above this many markers a chart draws their lines without labels. */
export const MAX_MARKER_LABELS = 6;
/** Marker labels closer than this share of the window go to the next lane (stacked, not overprinted). */
export const MARKER_GAP = 0.08;
export const MARKER_LANES = 3;
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
        role: 'limit',
      },
    ];
  }
  return withLimit.map((s, i) => ({
    name: `${s.name} ${label}`,
    data: s.data,
    color: colorOf(s, i),
    dashed: true,
    step: true,
    role: 'limit' as const,
  }));
}

const maxOf = (lines: readonly TLine[]): number =>
  lines.reduce((m, l) => l.data.reduce((mm, p) => (p[1] !== null && p[1] > mm ? p[1] : mm), m), 0);

/** Limit lines far above the data (they would squash it): hidden until toggled on in the legend. */
export function defaultHidden(c: TTimeChart): Set<string> {
  const dataMax = maxOf(c.lines.filter((l) => l.role !== 'limit'));
  return new Set(
    c.lines.filter((l) => l.role === 'limit' && isOffScale(maxOf([l]), dataMax)).map((l) => l.name),
  );
}

export interface TLegendItem {
  name: string;
  color: string;
  style: 'solid' | 'dotted' | 'limit';
  /** Limits: their value ("8.0 GiB"); hidden ones are off the scale. */
  value: string | null;
  hidden: boolean;
}

/** The chart's legend (an HTML list next to the canvas: wraps and scrolls, never pages or truncates). */
export function legendOf(c: TTimeChart, hidden: ReadonlySet<string> = defaultHidden(c)): TLegendItem[] {
  return c.lines.map((l, i) => ({
    name: l.name,
    color: l.color ?? PALETTE[i % PALETTE.length],
    style: l.role === 'limit' ? 'limit' : l.role === 'read' || l.dashed ? 'dotted' : 'solid',
    value: l.role === 'limit' ? formatValue(maxOf([l]), c.unit) : null,
    hidden: hidden.has(l.name),
  }));
}

/** Label lanes of markers: 0, 1, 2 for crowded neighbours; -1 = no room (label on hover only). */
export function stackMarkers(markers: readonly TMarker[], from: number, to: number): number[] {
  const gap = Math.max(1, (to - from) * MARKER_GAP);
  const order = markers.map((m, i) => [m.ts, i] as const).sort((a, b) => a[0] - b[0]);
  const laneEnd: number[] = [];
  const lanes = new Array<number>(markers.length).fill(-1);
  for (const [ts, i] of order) {
    const lane = laneEnd.findIndex((end) => ts - end >= gap);
    const pick = lane === -1 ? laneEnd.length : lane;
    if (pick >= MARKER_LANES) continue;
    laneEnd[pick] = ts;
    lanes[i] = pick;
  }
  return lanes;
}

function yAxisOf(c: TTimeChart, visible: readonly TLine[]) {
  const top = c.yMax ?? maxOf(visible);
  const fmt = (v: number) => formatValue(v, c.unit);
  switch (c.unit) {
    case 'bytes':
    case 'Bps': {
      const a = byteAxis(top, c.unit === 'Bps');
      return { min: a.min, max: a.max, interval: a.interval, formatter: a.format };
    }
    case 'count':
      return { ...valueAxis(top, { integer: true }), formatter: (v: number) => fmt(v) };
    case 'cores':
      return { ...valueAxis(top), formatter: (v: number) => `${Number(v.toFixed(3))} cores` };
    case 'ratio':
      return { ...valueAxis(top), formatter: (v: number) => `${Number((v * 100).toFixed(1))}%` };
  }
}

/**
 * The shared time chart: x = time, one line per visible series, round y ticks in the display unit,
 * tooltips and axis labels in `unit`, liveness markers in label lanes, limit lines told apart from data.
 */
export function buildTimeOption(c: TTimeChart, o: TTimeOptionOpts = {}): EChartsCoreOption {
  const fmt = (v: unknown) => formatValue(typeof v === 'number' ? v : null, c.unit);
  const hidden = o.hidden ?? defaultHidden(c);
  const markers = c.markers ?? [];
  const visible = c.lines.filter((l) => !hidden.has(l.name));
  const limitLabels = visible.filter((l) => l.role === 'limit').length <= 3;
  const series: Record<string, unknown>[] = c.lines.flatMap((l, i) => {
    if (hidden.has(l.name)) return [];
    const points = l.data.filter((p) => p[1] !== null).length;
    const limit = l.role === 'limit';
    return [
      {
        type: 'line',
        name: l.name,
        data: l.data,
        // A lone sample has no segment to draw: show it as a point.
        showSymbol: points === 1,
        symbolSize: 6,
        connectNulls: false,
        step: l.step ? 'end' : false,
        sampling: 'lttb',
        z: limit ? 1 : 2,
        lineStyle: {
          width: limit ? 2.5 : 1.5,
          type: limit ? [10, 5] : l.role === 'read' || l.dashed ? 'dotted' : 'solid',
          opacity: limit ? 0.85 : 1,
        },
        itemStyle: { color: l.color ?? PALETTE[i % PALETTE.length] },
        areaStyle: l.area ? { opacity: 0.15 } : undefined,
        emphasis: { focus: 'series' },
        ...(limit && limitLabels
          ? {
              endLabel: {
                show: true,
                formatter: () => `${l.name} ${formatValue(maxOf([l]), c.unit)}`,
                fontSize: 10,
                color: l.color ?? TONE.bad,
                position: 'insideEndTop',
                align: 'right',
                offset: [0, -2],
              },
            }
          : {}),
      },
    ];
  });
  if (markers.length > 0 && series.length > 0) {
    const lanes = stackMarkers(markers, c.from, c.to);
    const labelled = markers.length <= MAX_MARKER_LABELS;
    series[0].markLine = {
      symbol: 'none',
      animation: false,
      // Crowded markers stack in lanes; the rest (or all, when many) show their label on hover.
      label: { show: labelled, formatter: '{b}', fontSize: 10, position: 'insideEndTop' },
      emphasis: { label: { show: true, formatter: '{b}', fontSize: 10 } },
      data: markers.map((m, i) => ({
        name: m.label,
        xAxis: m.ts,
        lineStyle: { color: TONE[m.tone ?? 'warn'], type: 'dotted', width: 1.5 },
        label: { show: labelled && lanes[i] >= 0, distance: [0, 4 + 13 * Math.max(0, lanes[i])] },
      })),
    };
  }
  const bands = c.bands ?? [];
  if (bands.length > 0 && series.length > 0)
    series[0].markArea = {
      silent: true,
      animation: false,
      label: { show: true, position: 'insideTopLeft', fontSize: 10, color: '#6b7280' },
      data: bands.map((b) => [
        {
          name: b.label,
          xAxis: Math.max(b.from, c.from),
          itemStyle: { color: b.tone === 'warn' ? 'rgba(217,119,6,0.10)' : 'rgba(220,38,38,0.12)' },
        },
        { xAxis: Math.min(b.to ?? c.to, c.to) },
      ]),
    };
  const y = yAxisOf(c, visible);
  return {
    backgroundColor: 'transparent',
    animation: false,
    useUTC: !!o.utc,
    grid: { left: 8, right: 12, top: 12, bottom: 24, containLabel: true },
    // The legend is HTML next to the canvas (ChartPanel); the component stays for toggling.
    legend: { show: false },
    tooltip: {
      trigger: 'axis',
      confine: true,
      valueFormatter: fmt,
      axisPointer: { type: 'line' },
    },
    // Drag-to-zoom (o.zoom) is handled and drawn by the action (echarts.action onRange).
    xAxis: {
      type: 'time',
      min: c.from,
      max: c.to,
      axisLabel: { hideOverlap: true, formatter: timeAxisLabels(c.to - c.from) },
    },
    yAxis: {
      type: 'value',
      min: y.min,
      max: y.max,
      interval: y.interval,
      axisLabel: { formatter: y.formatter },
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

/** A chart of `lines` over the charts' window. */
const windowChart = (c: TChartsIn, unit: TUnit, lines: TLine[]): TTimeChart => ({
  unit,
  from: c.from,
  to: c.to,
  lines,
});

/** Under-replicated and unavailable ranges (cluster totals) with liveness transitions as markers. */
export function rangesChart(c: TChartsIn, markers: TMarker[] = []): TTimeChart {
  const lines: TLine[] = [
    { name: 'under-replicated', data: c.ranges_underreplicated, color: TONE.warn, step: true, area: true },
    { name: 'unavailable', data: c.ranges_unavailable, color: TONE.bad, step: true, area: true },
  ];
  return { ...windowChart(c, 'count', lines), markers };
}

export const leaseholdersChart = (c: TChartsIn) => windowChart(c, 'count', perNode(c.leaseholders));

export const cpuChart = (c: TChartsIn) =>
  windowChart(c, 'cores', [...perNode(c.cpu), ...limitLines(c.cpu_limit, c.from, c.to)]);

export const throttleChart = (c: TChartsIn) => windowChart(c, 'ratio', perNode(c.throttled));

export const memoryChart = (c: TChartsIn) =>
  windowChart(c, 'bytes', [...perNode(c.mem), ...limitLines(c.mem_limit, c.from, c.to)]);

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
    role: 'read' as const,
  }));
  const limits = [
    ...limitLines(c.io_write_limit ?? [], c.from, c.to, 'write limit'),
    ...limitLines(c.io_read_limit ?? [], c.from, c.to, 'read limit'),
  ];
  return windowChart(c, 'Bps', [...write, ...read, ...limits]);
}

/** Liveness transitions as chart markers: to DEAD/UNAVAILABLE is bad, back to LIVE is ok. */
export function eventMarkers(events: readonly { ts: number; node_id: number; to: string }[]): TMarker[] {
  return events.slice(0, 50).map((e) => ({
    ts: e.ts,
    label: `n${e.node_id} ${e.to}`,
    tone: e.to === 'LIVE' ? 'ok' : e.to === 'DEAD' || e.to === 'UNAVAILABLE' ? 'bad' : 'warn',
  }));
}
