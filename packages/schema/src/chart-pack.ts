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

/**
 * Indexes of the points to keep so that linear interpolation between kept points stays within `eps`
 * (vertically) of every dropped point; nulls (gaps) and the points next to them are always kept.
 */
export function keepWithin(pts: readonly (readonly [number, number | null])[], eps: number): number[] {
  const keep: number[] = [];
  const n = pts.length;
  // Columnar copies: the inner loop reads two flat arrays instead of destructuring tuples.
  const ts = new Float64Array(n);
  const vs = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    ts[k] = pts[k][0];
    vs[k] = pts[k][1] ?? NaN;
  }
  const stack: number[] = [];
  let i = 0;
  while (i < n) {
    if (pts[i][1] === null) {
      keep.push(i++);
      continue;
    }
    let j = i;
    while (j + 1 < n && pts[j + 1][1] !== null) j++;
    // A run [i, j] of values: iterative Douglas-Peucker on vertical distance.
    const mark = new Uint8Array(j - i + 1);
    mark[0] = mark[j - i] = 1;
    stack.push(i, j);
    while (stack.length) {
      const b = stack.pop()!;
      const a = stack.pop()!;
      if (b - a < 2) continue;
      const ta = ts[a];
      const va = vs[a];
      const slope = ts[b] === ta ? 0 : (vs[b] - va) / (ts[b] - ta);
      let worst = -1;
      let at = -1;
      for (let k = a + 1; k < b; k++) {
        const d = Math.abs(vs[k] - (va + slope * (ts[k] - ta)));
        if (d > worst) {
          worst = d;
          at = k;
        }
      }
      if (worst > eps) {
        mark[at - i] = 1;
        stack.push(a, at, at, b);
      }
    }
    for (let k = 0; k < mark.length; k++) if (mark[k]) keep.push(i + k);
    i = j + 1;
  }
  return keep;
}

/** Points per line above which a line is first cut to the min and max of each of this many time buckets. */
export const MAX_BUCKETS = 500;

/**
 * Downsampling that a chart cannot tell apart at its width: per time bucket the first null (a gap) and
 * the min and max points, in time order, plus the first and last point. Lines at or under 2 × `buckets`
 * points are returned whole.
 */
export function keepMinMax<T extends readonly [number, number | null]>(
  pts: readonly T[],
  buckets: number,
): T[] {
  const n = pts.length;
  if (n <= 2 * buckets) return pts as T[];
  const t0 = pts[0][0];
  const width = (pts[n - 1][0] - t0) / buckets || 1;
  const out: T[] = [pts[0]];
  let i = 1;
  while (i < n - 1) {
    const b = Math.floor((pts[i][0] - t0) / width);
    let lo = -1;
    let hi = -1;
    let gap = -1;
    let j = i;
    for (; j < n - 1 && Math.floor((pts[j][0] - t0) / width) === b; j++) {
      const v = pts[j][1];
      if (v === null) {
        if (gap < 0) gap = j;
        continue;
      }
      if (lo < 0 || v < (pts[lo][1] as number)) lo = j;
      if (hi < 0 || v > (pts[hi][1] as number)) hi = j;
    }
    for (const k of [lo, hi, gap].filter((x) => x >= 0).sort((a, b) => a - b))
      if (out[out.length - 1] !== pts[k]) out.push(pts[k]);
    i = j;
  }
  out.push(pts[n - 1]);
  return out;
}

/** Step lines: keeps the first and last point of every run of equal values (the same steps). */
export function keepSteps(pts: readonly (readonly [number, number | null])[]): number[] {
  return pts.flatMap((p, i) =>
    i === 0 || i === pts.length - 1 || p[1] !== pts[i - 1][1] || p[1] !== pts[i + 1][1] ? [i] : [],
  );
}

function packLine(pts: readonly (readonly [number, number | null])[], keep: number[]): TPackedLine {
  const t: number[] = [];
  const v: (number | null)[] = [];
  let prev = 0;
  for (const i of keep) {
    const [ts, val] = pts[i];
    t.push(ts - prev);
    prev = ts;
    v.push(round4(val));
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

/** Packs charts for the wire; `plotPx` sets the tolerance (half a pixel of the axis' data span). */
export function packCharts(c: TClusterCharts, plotPx: number = CHART_PLOT_PX): TPackedCharts {
  const out: Partial<TPackedCharts> = {
    from: c.from,
    to: c.to,
    resolution: c.resolution,
    step_ms: c.step_ms,
    ranges_underreplicated: packLine(c.ranges_underreplicated, keepSteps(c.ranges_underreplicated)),
    ranges_unavailable: packLine(c.ranges_unavailable, keepSteps(c.ranges_unavailable)),
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
export function unpackCharts(p: TPackedCharts): TClusterCharts {
  const series = (xs: TPackedSeries[]): TChartSeries[] =>
    xs.map((s) => ({ name: s.name, node_id: s.node_id, data: unpackLine(s) }));
  return {
    from: p.from,
    to: p.to,
    resolution: p.resolution,
    step_ms: p.step_ms,
    ranges_underreplicated: unpackLine(p.ranges_underreplicated) as [number, number][],
    ranges_unavailable: unpackLine(p.ranges_unavailable) as [number, number][],
    ...(Object.fromEntries(SERIES_KEYS.map((k) => [k, series(p[k])])) as Record<TSeriesKey, TChartSeries[]>),
  };
}

/** The database panels on the wire: every panel packed as the health charts are (one panel, one axis). */
export const ZPackedDbCharts = dbChartsOf(ZPackedSeries);
export type TPackedDbCharts = z.infer<typeof ZPackedDbCharts>;

/** Packs series drawn on one y axis: half a pixel of the axis' data span (0 always on the axis). */
function packAxis(xs: readonly TChartSeries[], plotPx: number): TPackedSeries[] {
  let lo = 0;
  let hi = 0;
  for (const s of xs)
    for (const p of s.data)
      if (p[1] !== null) {
        if (p[1] < lo) lo = p[1];
        if (p[1] > hi) hi = p[1];
      }
  const eps = (hi - lo) / (2 * plotPx);
  return xs.map((s) => {
    const pts = keepMinMax(s.data, MAX_BUCKETS);
    return { name: s.name, node_id: s.node_id, ...packLine(pts, keepWithin(pts, eps)) };
  });
}

export function packDbCharts(db: TDbCharts, plotPx: number = CHART_PLOT_PX): TPackedDbCharts {
  const out: Partial<TPackedDbCharts> = { from: db.from, to: db.to, step_ms: db.step_ms };
  for (const k of DB_KEYS) out[k] = packAxis(db[k], plotPx);
  return out as TPackedDbCharts;
}

export function unpackDbCharts(p: TPackedDbCharts): TDbCharts {
  const out: Partial<TDbCharts> = { from: p.from, to: p.to, step_ms: p.step_ms };
  for (const k of DB_KEYS)
    out[k] = p[k].map((s) => ({ name: s.name, node_id: s.node_id, data: unpackLine(s) }));
  return out as TDbCharts;
}
