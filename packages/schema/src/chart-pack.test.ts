import { describe, expect, it } from 'vitest';
import {
  fromCols,
  keepMinMax,
  keepSteps,
  keepWithin,
  packCharts,
  packDbCharts,
  round4,
  toColCharts,
  toCols,
  unpackCharts,
  unpackDbCharts,
} from './chart-pack';
import type { TChartSeries, TClusterCharts, TDbCharts } from './views';

type TPt = [number, number | null];

/** Value of the polyline through `pts` at time `t` (linear interpolation; null inside a gap). */
function at(pts: TPt[], t: number): number | null {
  for (let i = 0; i + 1 < pts.length; i++) {
    const [ta, va] = pts[i];
    const [tb, vb] = pts[i + 1];
    if (t < ta || t > tb) continue;
    if (va === null || vb === null) return t === ta ? va : t === tb ? vb : null;
    return tb === ta ? va : va + ((vb - va) * (t - ta)) / (tb - ta);
  }
  return pts.find((p) => p[0] === t)?.[1] ?? null;
}

type TSeriesKey = Exclude<
  keyof TClusterCharts,
  'from' | 'to' | 'resolution' | 'step_ms' | 'ranges_underreplicated' | 'ranges_unavailable'
>;

function charts(series: Partial<Record<TSeriesKey, TChartSeries[]>>): TClusterCharts {
  const none: TChartSeries[] = [];
  return {
    from: 0,
    to: 3_600_000,
    resolution: 'raw',
    step_ms: 10_000,
    ranges_underreplicated: [
      [0, 0],
      [10_000, 0],
      [20_000, 2],
      [30_000, 2],
      [40_000, 2],
      [50_000, 0],
    ],
    ranges_unavailable: [],
    leaseholders: none,
    cpu: none,
    cpu_limit: none,
    throttled: none,
    mem: none,
    mem_limit: none,
    io_read: none,
    io_write: none,
    io_read_limit: none,
    io_write_limit: none,
    ...series,
  };
}

describe('chart packing', () => {
  it('draws every point within half a pixel of the original line, keeps gaps, and is smaller', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const cpu: TChartSeries[] = Array.from({ length: 20 }, (_, n) => ({
      name: `n${n + 1}`,
      node_id: n + 1,
      data: Array.from(
        { length: 360 },
        (_, i): TPt => [
          1_700_000_000_000 + i * 10_000 + n,
          i >= 100 && i < 110 && n === 3 ? null : 2 + Math.sin(i / 30) + (i % 50 === 0 ? rnd() : 0),
        ],
      ),
    }));
    const c = charts({ cpu });
    const packed = packCharts(toColCharts(c), 220);
    const back = unpackCharts(packed);
    let hi = 0;
    for (const s of cpu) for (const p of s.data) hi = Math.max(hi, p[1] ?? 0);
    const eps = hi / 440;
    back.cpu.forEach((s, k) => {
      for (const [t, v] of cpu[k].data) {
        const drawn = at(s.data, t);
        if (v === null) expect(drawn).toBeNull();
        // 4 significant digits add at most 5e-4 relative on top of the half-pixel tolerance.
        else expect(Math.abs((drawn ?? NaN) - v)).toBeLessThanOrEqual(eps + Math.abs(v) * 5e-4);
      }
    });
    expect(back.cpu[3].data.filter((p) => p[1] === null)).toHaveLength(10);
    expect(JSON.stringify(packed).length).toBeLessThan(JSON.stringify(c).length / 4);
  });

  it('keeps step lines exact and timestamps exact', () => {
    const c = charts({});
    const back = unpackCharts(packCharts(toColCharts(c)));
    for (const t of [0, 10_000, 20_000, 30_000, 40_000, 50_000])
      expect(back.ranges_underreplicated.findLast((p) => p[0] <= t)?.[1]).toBe(
        c.ranges_underreplicated.find((p) => p[0] === t)?.[1],
      );
    expect(back.ranges_underreplicated.map((p) => p[0])).toEqual([0, 10_000, 20_000, 40_000, 50_000]);
  });

  it('keepWithin keeps a spike and drops points on a straight line', () => {
    const pts: TPt[] = [
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 9],
      [4, 4],
      [5, 5],
    ];
    expect(keepWithin(toCols(pts), 0.1)).toEqual([0, 2, 3, 4, 5]);
    expect(
      keepSteps(
        toCols([
          [0, 1],
          [1, 1],
          [2, 1],
          [3, 2],
        ]),
      ),
    ).toEqual([0, 2, 3]);
  });

  it('round4 equals Number(v.toPrecision(4)) without strings', () => {
    let seed = 11;
    const rnd = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const xs = [0, 1, -1, 9.9995, 9.99949, 999.95, 1234.5, 0.00012345, 1e-7, 123456789, -0.5, 1e21, 3e300];
    for (let i = 0; i < 20_000; i++) xs.push((rnd() - 0.3) * 10 ** Math.floor(rnd() * 24 - 10));
    for (const v of xs) expect(round4(v), String(v)).toBe(Number(v.toPrecision(4)));
    expect(round4(null)).toBeNull();
  });

  it('packs the database panels: each panel within half a pixel of its own span, smaller on the wire', () => {
    const line = (name: string, node_id: number | null, f: (i: number) => number | null): TChartSeries => ({
      name,
      node_id,
      data: Array.from({ length: 120 }, (_, i): TPt => [1_700_000_000_000 + i * 30_000, f(i)]),
    });
    const none: TChartSeries[] = [];
    const db: TDbCharts = {
      from: 0,
      to: 3_600_000,
      step_ms: 30_000,
      tenants: ['system', 'demoapp'],
      statements: [line('select', null, (i) => 300 + Math.sin(i / 9) * 40), line('insert', null, () => 60)],
      latency: [line('p99', null, (i) => (i === 50 ? null : 2 + (i % 7) / 10))],
      transactions: none,
      connections: [1, 2, 3].map((n) => line(`n${n}`, n, (i) => 10 * n + (i % 3))),
      capacity: none,
      capacity_used_ratio: none,
      live_bytes: [line('n1', 1, (i) => 1e9 + i * 1e6)],
      cpu: none,
      rss: none,
      replicas: none,
      leaseholders: none,
    };
    const packed = packDbCharts(db, 220);
    const back = unpackDbCharts(packed);
    expect(back.tenants).toEqual(['system', 'demoapp']);
    for (const k of ['statements', 'latency', 'connections', 'live_bytes'] as const) {
      let hi = 0;
      for (const s of db[k]) for (const p of s.data) hi = Math.max(hi, p[1] ?? 0);
      back[k].forEach((s, j) => {
        expect(s.name).toBe(db[k][j].name);
        for (const [t, v] of db[k][j].data) {
          const drawn = at(s.data, t);
          if (v === null) expect(drawn).toBeNull();
          else expect(Math.abs((drawn ?? NaN) - v)).toBeLessThanOrEqual(hi / 440 + Math.abs(v) * 5e-4);
        }
      });
    }
    expect(back.statements[1].data).toHaveLength(2); // a flat line: first and last
    expect(back.live_bytes[0].data).toHaveLength(2); // a straight line too
    expect(JSON.stringify(packed).length).toBeLessThan(JSON.stringify(db).length / 2);
  });

  it("keepMinMax keeps every bucket's extremes and gaps of a long line, in time order", () => {
    const pts: TPt[] = Array.from({ length: 2160 }, (_, i) => [
      i * 10_000,
      i === 700 ? null : (i * 7919) % 101,
    ]);
    pts[1000][1] = 500; // a one-sample spike
    const kept = fromCols(keepMinMax(toCols(pts), 100));
    expect(kept.length).toBeLessThanOrEqual(2 + 3 * 101);
    expect(kept[0]).toEqual(pts[0]);
    expect(kept.at(-1)).toEqual(pts.at(-1));
    expect(kept.some((p) => p[1] === 500)).toBe(true);
    expect(kept.some((p) => p[1] === null)).toBe(true);
    for (let i = 1; i < kept.length; i++) expect(kept[i][0]).toBeGreaterThan(kept[i - 1][0]);
    // Per bucket, the max and min survive: the envelope a 100-pixel-wide chart draws is unchanged.
    const w = (pts.at(-1)![0] - pts[0][0]) / 100;
    const env = (xs: TPt[]) => {
      const m = new Map<number, [number, number]>();
      for (const [t, v] of xs.slice(1, -1)) {
        if (v === null) continue;
        const b = Math.floor(t / w);
        const [lo, hi] = m.get(b) ?? [Infinity, -Infinity];
        m.set(b, [Math.min(lo, v), Math.max(hi, v)]);
      }
      return m;
    };
    expect(env(kept)).toEqual(env(pts));
    expect(keepMinMax(toCols(pts.slice(0, 150)), 100).t).toHaveLength(150); // short lines are left whole
  });
});
