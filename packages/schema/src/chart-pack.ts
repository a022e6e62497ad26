/**
 * The wire form of the health charts: columnar, delta-encoded timestamps, 4 significant digits, and no
 * point a chart could show (a point within half a pixel of the line through its kept neighbours is
 * dropped; a line longer than 2 × MAX_BUCKETS points is first cut to each time bucket's min and max).
 * `packCharts` runs on the server, `unpackCharts` in the page; what the chart draws is the same.
 */
import { z } from 'zod';
import { dbChartsOf, DB_KEYS, healthChartsOf, SERIES_KEYS, type TSeriesKey } from './chart-shape';
import type { TChartSeries, TClusterCharts, TDbCharts } from './views';

/** Plot height the tolerance is computed for (the chart panels are 220 px tall, the plot is less). */
export const CHART_PLOT_PX = 220;

/** A line: `t` = first timestamp (epoch ms), then differences to the previous one; `v` the values. */
export const ZPackedLine = z.object({
  t: z.array(z.number()),
  v: z.array(z.number().nullable()),
});
export type TPackedLine = z.infer<typeof ZPackedLine>;

export const ZPackedSeries = ZPackedLine.extend({ name: z.string(), node_id: z.number().nullable() });
export type TPackedSeries = z.infer<typeof ZPackedSeries>;

export const ZPackedCharts = healthChartsOf(ZPackedLine, ZPackedSeries);
export type TPackedCharts = z.infer<typeof ZPackedCharts>;

/** Line charts sharing a y axis: a limit is drawn on its measure's axis. */
const AXES: TSeriesKey[][] = [
  ['leaseholders'],
  ['cpu', 'cpu_limit'],
  ['throttled'],
  ['mem', 'mem_limit'],
  ['io_read', 'io_write', 'io_read_limit', 'io_write_limit'],
];

const POW10 = Array.from({ length: 40 }, (_, i) => 10 ** (i - 20));

/**
 * 4 significant digits, as `Number(v.toPrecision(4))` but without building a string (this runs on
 * every point of every page): the quotient of an integer by an exact power of ten is the nearest double.
 */
export function round4(v: number | null): number | null {
  if (v === null || v === 0 || !Number.isFinite(v)) return v;
  const e = Math.floor(Math.log10(Math.abs(v)));
  const k = 3 - e;
  if (k < -16 || k > 16) return Number(v.toPrecision(4));
  const x = k >= 0 ? v * POW10[k + 20] : v / POW10[-k + 20];
  const f = Math.abs(x) % 1;
  // Near a tie (or log10 off by one at a power of ten) the scaled value is inexact: the exact path.
  if (Math.abs(f - 0.5) < 1e-6 || Math.abs(x) < 999.5 || Math.abs(x) >= 9999.5)
    return Number(v.toPrecision(4));
  const n = Math.round(x);
  return k >= 0 ? n / POW10[k + 20] : n * POW10[-k + 20];
}

/** A line in columns, the server's working form: times (epoch ms) and values, NaN where there is none. */
export interface TCols {
  t: number[];
  v: number[];
}
export type TColSeries = TCols & { name: string; node_id: number | null };
type TSumKey = 'ranges_underreplicated' | 'ranges_unavailable';
/** The health charts with lines of some form: `L` for the two sums, `S` for each per-node series. */
type TChartsOf<L, S> = Omit<TClusterCharts, TSeriesKey | TSumKey> &
  Record<TSumKey, L> &
  Record<TSeriesKey, S[]>;
/** The health charts with every line in columns (what the server builds and `packCharts` takes). */
export type TColCharts = TChartsOf<TCols, TColSeries>;

/** The same charts with every line converted. */
function mapCharts<L, S, L2, S2>(
  c: TChartsOf<L, S>,
  line: (l: L) => L2,
  series: (s: S) => S2,
): TChartsOf<L2, S2> {
  return {
    from: c.from,
    to: c.to,
    resolution: c.resolution,
    step_ms: c.step_ms,
    ranges_underreplicated: line(c.ranges_underreplicated),
    ranges_unavailable: line(c.ranges_unavailable),
    ...(Object.fromEntries(SERIES_KEYS.map((k) => [k, c[k].map(series)])) as Record<TSeriesKey, S2[]>),
  };
}

export function toCols(pts: readonly (readonly [number, number | null])[]): TCols {
  const t: number[] = new Array(pts.length);
  const v: number[] = new Array(pts.length);
  for (let i = 0; i < pts.length; i++) {
    t[i] = pts[i][0];
    v[i] = pts[i][1] ?? NaN;
  }
  return { t, v };
}

export function fromCols(c: TCols): [number, number | null][] {
  const out: [number, number | null][] = new Array(c.t.length);
  for (let i = 0; i < c.t.length; i++) out[i] = [c.t[i], Number.isNaN(c.v[i]) ? null : c.v[i]];
  return out;
}

export const toColSeries = (s: TChartSeries): TColSeries => ({
  name: s.name,
  node_id: s.node_id,
  ...toCols(s.data),
});

/** The charts with tuple lines (the REST shape), from the server's columns. */
export const fromColCharts = (c: TColCharts): TClusterCharts =>
  mapCharts(c, fromCols as (l: TCols) => [number, number][], (s) => ({
    name: s.name,
    node_id: s.node_id,
    data: fromCols(s),
  }));

export const toColCharts = (c: TClusterCharts): TColCharts => mapCharts(c, toCols, toColSeries);

/**
 * Indexes of the points to keep so that linear interpolation between kept points stays within `eps`
 * (vertically) of every dropped point; gaps (NaN) and the points next to them are always kept.
 * One pass per kept point (a "sleeve"): from the last kept point, the slopes that pass within `eps` of
 * every point so far narrow to an interval; the furthest point whose own slope lies in it is kept next.
 * Linear on noisy lines, where Douglas-Peucker is n log n and keeps more on smooth ones.
 */
export function keepWithin({ t: ts, v: vs }: TCols, eps: number): number[] {
  const keep: number[] = [];
  const n = ts.length;
  let i = 0;
  while (i < n) {
    if (Number.isNaN(vs[i])) {
      keep.push(i++);
      continue;
    }
    let j = i;
    while (j + 1 < n && !Number.isNaN(vs[j + 1])) j++;
    // A run [i, j] of values.
    let a = i;
    keep.push(a);
    while (a < j) {
      const ta = ts[a];
      const va = vs[a];
      let lo = -Infinity;
      let hi = Infinity;
      let next = a + 1;
      for (let k = a + 1; k <= j; k++) {
        const dt = ts[k] - ta;
        const s = (vs[k] - va) / dt;
        if (!(s < lo || s > hi)) next = k;
        if (!(dt > 0)) break;
        const l = (vs[k] - eps - va) / dt;
        const h = (vs[k] + eps - va) / dt;
        if (l > lo) lo = l;
        if (h < hi) hi = h;
        if (lo > hi) break;
      }
      keep.push(next);
      a = next;
    }
    i = j + 1;
  }
  return keep;
}

/** Points per line above which a line is first cut to the min and max of each of this many time buckets. */
export const MAX_BUCKETS = 500;

/**
 * Downsampling that a chart cannot tell apart at its width: per time bucket the first gap (NaN) and
 * the min and max points, in time order, plus the first and last point. Lines at or under 2 × `buckets`
 * points are returned as they are.
 */
export function keepMinMax(c: TCols, buckets: number): TCols {
  const { t: ts, v: vs } = c;
  const n = ts.length;
  if (n <= 2 * buckets) return c;
  const t0 = ts[0];
  const width = (ts[n - 1] - t0) / buckets || 1;
  const out: TCols = { t: [t0], v: [vs[0]] };
  let last = 0;
  const add = (k: number) => {
    if (k === last) return;
    out.t.push(ts[k]);
    out.v.push(vs[k]);
    last = k;
  };
  let i = 1;
  while (i < n - 1) {
    const b = Math.floor((ts[i] - t0) / width);
    let lo = -1;
    let hi = -1;
    let gap = -1;
    let j = i;
    for (; j < n - 1 && Math.floor((ts[j] - t0) / width) === b; j++) {
      const v = vs[j];
      if (Number.isNaN(v)) {
        if (gap < 0) gap = j;
        continue;
      }
      if (lo < 0 || v < vs[lo]) lo = j;
      if (hi < 0 || v > vs[hi]) hi = j;
    }
    for (const k of [lo, hi, gap].filter((x) => x >= 0).sort((a, b) => a - b)) add(k);
    i = j;
  }
  add(n - 1);
  return out;
}

/** Step lines: keeps the first and last point of every run of equal values (the same steps). */
export function keepSteps({ v }: TCols): number[] {
  const keep: number[] = [];
  for (let i = 0; i < v.length; i++)
    if (i === 0 || i === v.length - 1 || !Object.is(v[i], v[i - 1]) || !Object.is(v[i], v[i + 1]))
      keep.push(i);
  return keep;
}

function packLine({ t: ts, v: vs }: TCols, keep: number[]): TPackedLine {
  const t: number[] = new Array(keep.length);
  const v: (number | null)[] = new Array(keep.length);
  let prev = 0;
  for (let j = 0; j < keep.length; j++) {
    const i = keep[j];
    t[j] = ts[i] - prev;
    prev = ts[i];
    v[j] = Number.isNaN(vs[i]) ? null : round4(vs[i]);
  }
  return { t, v };
}

function unpackLine(l: TPackedLine): [number, number | null][] {
  const out: [number, number | null][] = new Array(l.t.length);
  let ts = 0;
  for (let i = 0; i < l.t.length; i++) {
    ts += l.t[i];
    out[i] = [ts, l.v[i]];
  }
  return out;
}

const stepLine = (c: TCols) => packLine(c, keepSteps(c));

/** Packs charts for the wire; `plotPx` sets the tolerance (half a pixel of the axis' data span). */
export function packCharts(c: TColCharts, plotPx: number = CHART_PLOT_PX): TPackedCharts {
  const out: Partial<TPackedCharts> = {
    from: c.from,
    to: c.to,
    resolution: c.resolution,
    step_ms: c.step_ms,
    ranges_underreplicated: stepLine(c.ranges_underreplicated),
    ranges_unavailable: stepLine(c.ranges_unavailable),
  };
  for (const keys of AXES) {
    const packed = packAxis(
      keys.flatMap((k) => c[k]),
      plotPx,
    );
    let at = 0;
    for (const k of keys) out[k] = packed.slice(at, (at += c[k].length));
  }
  return out as TPackedCharts;
}

/** The charts as the option builders take them. */
export const unpackCharts = (p: TPackedCharts): TClusterCharts =>
  mapCharts(p, unpackLine as (l: TPackedLine) => [number, number][], (s) => ({
    name: s.name,
    node_id: s.node_id,
    data: unpackLine(s),
  }));

/** The database panels on the wire: every panel packed as the health charts are (one panel, one axis). */
export const ZPackedDbCharts = dbChartsOf(ZPackedSeries);
export type TPackedDbCharts = z.infer<typeof ZPackedDbCharts>;

/** Packs series drawn on one y axis: half a pixel of the axis' data span (0 always on the axis). */
function packAxis(xs: readonly TColSeries[], plotPx: number): TPackedSeries[] {
  let lo = 0;
  let hi = 0;
  for (const { v } of xs)
    for (let i = 0; i < v.length; i++) {
      // NaN fails both comparisons.
      if (v[i] < lo) lo = v[i];
      if (v[i] > hi) hi = v[i];
    }
  const eps = (hi - lo) / (2 * plotPx);
  return xs.map((s) => {
    const c = keepMinMax(s, MAX_BUCKETS);
    return { name: s.name, node_id: s.node_id, ...packLine(c, keepWithin(c, eps)) };
  });
}

export function packDbCharts(db: TDbCharts, plotPx: number = CHART_PLOT_PX): TPackedDbCharts {
  const out: Partial<TPackedDbCharts> = {
    from: db.from,
    to: db.to,
    step_ms: db.step_ms,
    tenants: db.tenants,
  };
  for (const k of DB_KEYS) out[k] = packAxis(db[k].map(toColSeries), plotPx);
  return out as TPackedDbCharts;
}

export function unpackDbCharts(p: TPackedDbCharts): TDbCharts {
  const out: Partial<TDbCharts> = { from: p.from, to: p.to, step_ms: p.step_ms, tenants: p.tenants };
  for (const k of DB_KEYS)
    out[k] = p[k].map((s) => ({ name: s.name, node_id: s.node_id, data: unpackLine(s) }));
  return out as TDbCharts;
}
