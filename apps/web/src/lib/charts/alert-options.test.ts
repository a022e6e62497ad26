import { describe, expect, it } from 'vitest';
import { alertChart } from './alert-options';
import { buildTimeOption } from './options';

const M = 60_000;
const view = {
  from: 0,
  to: 60 * M,
  source: 'history' as const,
  unit: '%',
  threshold: 90,
  data: [
    [10 * M, 80],
    [30 * M, 95],
    [50 * M, 85],
  ] as [number, number | null][],
  windows: [{ from: 25 * M, to: 45 * M, firedAt: 30 * M }],
};

describe('alertChart', () => {
  it('draws the value, the threshold as a limit line and the pending and firing windows', () => {
    const c = alertChart(view);
    expect(c.lines.map((l) => [l.name, l.role])).toEqual([
      ['value', undefined],
      ['threshold', 'limit'],
    ]);
    expect(c.lines[1].data).toEqual([
      [0, 90],
      [60 * M, 90],
    ]);
    expect(c.bands).toEqual([
      { from: 25 * M, to: 30 * M, label: 'pending', tone: 'warn' },
      { from: 30 * M, to: 45 * M, label: 'fired', tone: 'bad' },
    ]);
    const o = buildTimeOption(c) as {
      series: { markArea?: { data: [{ name: string; xAxis: number }, { xAxis: number }][] } }[];
    };
    expect(o.series[0].markArea?.data.map(([a, b]) => [a.name, a.xAxis, b.xAxis])).toEqual([
      ['pending', 25 * M, 30 * M],
      ['fired', 30 * M, 45 * M],
    ]);
  });

  it('a still-firing alert shades up to the end; bytes draw in bytes', () => {
    const c = alertChart({ ...view, unit: 'B', windows: [{ from: 25 * M, to: null, firedAt: 25 * M }] });
    expect(c.unit).toBe('bytes');
    expect(c.bands).toEqual([{ from: 25 * M, to: null, label: 'firing', tone: 'bad' }]);
    const o = buildTimeOption(c) as {
      series: { markArea?: { data: [{ xAxis: number }, { xAxis: number }][] } }[];
    };
    expect(o.series[0].markArea?.data[0][1].xAxis).toBe(60 * M);
  });
});
