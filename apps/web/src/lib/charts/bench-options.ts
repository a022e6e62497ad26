/**
 * Pure option builders for benchmark charts (run intervals, run comparison overlays, workload history)
 * and the inline SVG sparkline path. No DOM, no ECharts import; applied by `echartsAction`.
 */
import type { EChartsCoreOption } from 'echarts/core';
import { html } from './escape';
import { timeAxisLabels } from './axes';
import { formatInstant } from './time';
import { getMetricInfo, getMetricKind } from '@clusterscope/bench';
import { formatValue, METRIC_KIND_WORDS } from '@clusterscope/schema';

export const RUN_PALETTE = [
  '#2563eb',
  '#dc2626',
  '#16a34a',
  '#d97706',
  '#9333ea',
  '#0891b2',
  '#db2777',
  '#65a30d',
];

/** The one value formatter of every page (formatValue of @clusterscope/schema). */
export const formatNum = formatValue;

export interface TElapsedLine {
  name: string;
  /** [elapsed seconds, value]; null is an interval without a value, drawn as a gap. */
  data: [number, number | null][];
  color?: string;
  dashed?: boolean;
}

/**
 * Rows a wrapping legend needs at `width` px (≈ 6.5 px per character at 11 px, plus the swatch); used to
 * leave room above the grid so full names fit without paging.
 */
export function legendRows(names: readonly string[], width = 420): number {
  let rows = 1;
  let x = 0;
  for (const n of names) {
    const w = 34 + n.length * 6.5;
    if (x > 0 && x + w > width) {
      rows++;
      x = 0;
    }
    x += w;
  }
  return names.length ? rows : 0;
}

/** Interval chart with x = elapsed seconds: one run's metrics, or several runs overlaid (aligned by elapsed time). */
/** Elapsed seconds on an x axis: 45s, 2min 5s, 6h 56min (never "25000s"). */
export function formatElapsed(sec: number): string {
  if (!Number.isFinite(sec)) return '';
  const sign = sec < 0 ? '-' : '';
  const t = Math.round(Math.abs(sec));
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const s = t % 60;
  if (h) return `${sign}${h}h${m ? ` ${m}min` : ''}`;
  if (m) return `${sign}${m}min${s ? ` ${s}s` : ''}`;
  return `${sign}${s}s`;
}

export type TUnitChart = { title: string; unit: string; lines: TElapsedLine[] };

/**
 * One chart per unit, so metrics of different scales never share an axis (tx/s and queries/s are two
 * charts), with every sampled metric in one of them; charts in the order of the kinds (rates first).
 */
export function groupSeriesByUnit(
  series: Record<string, [number, number | null][]>,
  units: Record<string, string> = {},
): TUnitChart[] {
  const order = ['rate', 'latency', 'error_rate', 'count', 'setup', 'duration'];
  const by = new Map<string, { kind: string; names: string[] }>();
  for (const name of Object.keys(series).sort()) {
    const unit = units[name] ?? getMetricInfo(name)?.unit ?? '';
    const g = by.get(unit) ?? by.set(unit, { kind: getMetricKind(name), names: [] }).get(unit)!;
    g.names.push(name);
  }
  return [...by]
    .sort((a, b) => order.indexOf(a[1].kind) - order.indexOf(b[1].kind) || a[0].localeCompare(b[0]))
    .map(([unit, g]) => ({
      title:
        g.names.length === 1
          ? (getMetricInfo(g.names[0])?.label ?? g.names[0])
          : `${METRIC_KIND_WORDS[g.kind as keyof typeof METRIC_KIND_WORDS] ?? g.kind}: ${g.names.join(', ')}`,
      unit,
      lines: g.names.map((n) => ({ name: n, data: series[n] })),
    }));
}

function hasLonePoint(data: readonly [number, number | null][]): boolean {
  return data.some(
    ([, v], i) => v !== null && (data[i - 1]?.[1] ?? null) === null && (data[i + 1]?.[1] ?? null) === null,
  );
}

export function buildElapsedOption(a: { lines: TElapsedLine[]; unit: string }): EChartsCoreOption {
  const unit = a.unit ? ` ${a.unit}` : '';
  const rows = legendRows(a.lines.map((l) => l.name));
  return {
    animation: false,
    grid: { left: 8, right: 16, top: 10 + 18 * rows, bottom: 24, containLabel: true },
    // Plain legend: wraps onto more rows instead of paging, names are never cut.
    legend: { top: 0, type: 'plain', itemGap: 8, itemWidth: 14, itemHeight: 8, textStyle: { fontSize: 11 } },
    tooltip: {
      trigger: 'axis',
      valueFormatter: (v: unknown) => (typeof v === 'number' ? `${formatNum(v)}${unit}` : '—'),
    },
    xAxis: {
      type: 'value',
      min: 0,
      axisLabel: { formatter: (v: number) => formatElapsed(v) },
    },
    yAxis: { type: 'value', scale: true, axisLabel: { formatter: (v: number) => formatNum(v) } },
    series: a.lines.map((l, i) => ({
      name: l.name,
      type: 'line',
      // A point with no neighbour (one sample, or one between two gaps) has no line: show symbols then.
      showSymbol: hasLonePoint(l.data),
      symbolSize: 6,
      data: l.data,
      // A null is an interval with no value (a stall has no latency): break the line, never join across.
      connectNulls: false,
      lineStyle: { width: 1.5, type: l.dashed ? 'dashed' : 'solid' },
      color: l.color ?? RUN_PALETTE[i % RUN_PALETTE.length],
    })),
  };
}

export interface THistoryPoint {
  runId: string;
  t: number;
  value: number;
  sha: string | null;
  branch: string | null;
  envHealthy: boolean | null;
  /** The threshold boundary this run was judged against (null: no threshold judged it). */
  bound?: number | null;
}

export interface THistoryChart {
  label: string;
  unit: string;
  points: THistoryPoint[];
  band: { lo: number; hi: number; mean: number; branch: string; runs?: number } | null;
  direction: 'higher' | 'lower';
  changePoints: { t: number }[];
}

/** Tooltip markup of one history point (branch and sha come from CI: escaped through `html`). */
export function describeHistoryPoint(p: THistoryPoint, unit: string, zone = 'UTC'): string {
  const when = `${formatInstant(p.t, zone, false)}${zone === 'UTC' ? ' UTC' : ''}`;
  const git = [p.branch, p.sha?.slice(0, 10)].filter(Boolean).join(' @ ');
  const env = p.envHealthy === false ? ' · environment unhealthy' : '';
  return html`${when}<br />${formatNum(p.value)}${unit ? ` ${unit}` : ''}${git
      ? html`<br />${git}`
      : ''}${env}<br />Click to open the run`.toString();
}

/**
 * Metric history over time (x = run start): the value per run (a data item carries its `runId`, so a
 * click opens the run), the threshold's baseline band (only its worse side can be crossed), the boundary
 * each run was judged against (a dotted step line) and change points as vertical lines. Times in `zone` (UTC, or the browser's zone).
 */
export function buildHistoryOption(h: THistoryChart, o: { zone?: string } = {}): EChartsCoreOption {
  const zone = o.zone ?? 'UTC';
  const ts = h.points.map((p) => p.t);
  const span = ts.length ? Math.max(...ts) - Math.min(...ts) : 0;
  const byT = new Map(h.points.map((p) => [p.t, p]));
  const markArea = h.band
    ? {
        silent: true,
        itemStyle: { color: 'rgba(22,163,74,0.10)' },
        data: [
          [
            {
              yAxis: h.band.lo,
              name: `baseline ${h.band.branch}${h.band.runs ? ` (last ${h.band.runs === 1 ? 'run' : `${h.band.runs} runs`})` : ''}`,
            },
            { yAxis: h.band.hi },
          ],
        ],
      }
    : undefined;
  const markLine = {
    silent: true,
    symbol: 'none',
    label: { formatter: 'change', fontSize: 10 },
    lineStyle: { color: '#d97706', type: 'dashed' },
    data: h.changePoints.map((c) => ({ xAxis: c.t })),
  };
  return {
    animation: false,
    useUTC: zone === 'UTC',
    grid: { left: 8, right: 16, top: 24, bottom: 24, containLabel: true },
    tooltip: {
      trigger: 'item',
      formatter: (p: { value?: [number, number] }) => {
        const pt = p.value ? byT.get(p.value[0]) : undefined;
        return pt ? describeHistoryPoint(pt, h.unit, zone) : '';
      },
    },
    xAxis: { type: 'time', axisLabel: { hideOverlap: true, formatter: timeAxisLabels(span) } },
    yAxis: {
      type: 'value',
      scale: true,
      name: h.unit,
      axisLabel: { formatter: (v: number) => formatNum(v) },
    },
    series: [
      {
        name: h.label,
        type: 'line',
        data: h.points.map((p) => ({
          value: [p.t, p.value],
          runId: p.runId,
          itemStyle: p.envHealthy === false ? { color: '#94a3b8' } : undefined,
        })),
        showSymbol: true,
        symbolSize: 7,
        cursor: 'pointer',
        color: RUN_PALETTE[0],
        markLine,
        ...(markArea ? { markArea } : {}),
      },
      ...(h.points.some((p) => p.bound != null)
        ? [
            {
              name: 'threshold boundary',
              type: 'line',
              step: 'end',
              silent: true,
              showSymbol: false,
              connectNulls: false,
              color: '#dc2626',
              lineStyle: { type: 'dotted', width: 1.5 },
              data: h.points.map((p) => [p.t, p.bound ?? null]),
            },
          ]
        : []),
    ],
  };
}

/** SVG path ("M x y L …") of a sparkline in a w×h box; flat series sit in the middle; empty → ''. */
export function sparklinePath(values: readonly number[], w: number, h: number, pad = 1): string {
  const xs = values.filter(Number.isFinite);
  if (xs.length === 0) return '';
  const min = Math.min(...xs);
  const max = Math.max(...xs);
  const span = max - min;
  const step = xs.length > 1 ? (w - 2 * pad) / (xs.length - 1) : 0;
  const y = (v: number) => (span === 0 ? h / 2 : pad + (h - 2 * pad) * (1 - (v - min) / span));
  return xs
    .map((v, i) => `${i === 0 ? 'M' : 'L'}${(pad + i * step).toFixed(1)} ${y(v).toFixed(1)}`)
    .join(' ');
}
