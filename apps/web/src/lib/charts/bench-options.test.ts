import { describe, expect, it } from 'vitest';
import {
  buildElapsedOption,
  buildHistoryOption,
  legendRows,
  describeHistoryPoint,
  formatNum,
  sparklinePath,
  type THistoryPoint,
} from './bench-options';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking plain option objects
type TAny = any;

describe('sparklinePath', () => {
  it('scales the series into the box', () => {
    expect(sparklinePath([0, 5, 10], 100, 20, 0)).toBe('M0.0 20.0 L50.0 10.0 L100.0 0.0');
  });
  it('draws a flat series in the middle, a single point, and nothing for no data', () => {
    expect(sparklinePath([3, 3], 10, 10, 0)).toBe('M0.0 5.0 L10.0 5.0');
    expect(sparklinePath([7], 10, 10)).toBe('M1.0 5.0');
    expect(sparklinePath([], 10, 10)).toBe('');
    expect(sparklinePath([NaN, 1, 2], 10, 10, 0)).toBe('M0.0 10.0 L10.0 0.0');
  });
});

describe('buildElapsedOption', () => {
  it('one line per run, aligned by elapsed seconds, with distinct colours', () => {
    const o = buildElapsedOption({
      unit: 'tx/s',
      lines: [
        {
          name: 'a',
          data: [
            [1, 10],
            [2, 11],
          ],
        },
        { name: 'b', data: [[1, 9]], dashed: true },
      ],
    }) as unknown as TAny;
    expect(o.xAxis.type).toBe('value');
    expect(o.series.length).toBe(2);
    expect(o.series[0].data).toEqual([
      [1, 10],
      [2, 11],
    ]);
    expect(o.series[0].color).not.toBe(o.series[1].color);
    expect(o.series[1].lineStyle.type).toBe('dashed');
    // A one-sample line draws its point; the legend wraps (plain), it never pages.
    expect(o.series.map((x: TAny) => x.showSymbol)).toEqual([false, true]);
    expect(o.legend.type).toBe('plain');
    expect((o.tooltip.valueFormatter as unknown as (v: number) => string)(1234.5)).toBe('1,235 tx/s');
  });
});

describe('buildElapsedOption gaps', () => {
  it('keeps nulls (intervals without a value) and never connects across them', () => {
    const o = buildElapsedOption({
      unit: 'ms',
      lines: [{ name: 'p95_ms', data: [[1, 14.7], [2, null], [3, null], [4, 9], [5, 8]] }],
    }) as unknown as TAny; // prettier-ignore
    expect(o.series[0].data[1]).toEqual([2, null]);
    expect(o.series[0].connectNulls).toBe(false);
    // 14.7 at 1 s stands alone between the start and a gap: its symbol is drawn.
    expect(o.series[0].showSymbol).toBe(true);
    const joined = buildElapsedOption({ unit: 'ms', lines: [{ name: 'x', data: [[1, 1], [2, 2]] }] }) as unknown as TAny; // prettier-ignore
    expect(joined.series[0].showSymbol).toBe(false);
  });
});

describe('legendRows', () => {
  it('leaves room for every full name (no paging, no truncation)', () => {
    // Each item is 34 px + 6.5 px per character: 10 names of 20 characters = 164 px each, 2 per 420 px row.
    expect(legendRows(Array.from({ length: 10 }, (_, i) => `#${i} main@abc1234 r${i}`.padEnd(20, 'x')))).toBe(
      5,
    );
    expect(legendRows(['a', 'b', 'c'])).toBe(1);
    expect(legendRows([])).toBe(0);
  });
});

describe('buildHistoryOption', () => {
  const pts: THistoryPoint[] = [
    { runId: 'r1', t: 1_700_000_000_000, value: 100, sha: 'abcdef1234567', branch: 'main', envHealthy: true },
    { runId: 'r2', t: 1_700_000_360_000, value: 80, sha: null, branch: 'feat', envHealthy: false },
  ];
  it('adds the threshold band and change-point lines', () => {
    const o = buildHistoryOption({
      label: 'Transactions/s',
      unit: 'tx/s',
      points: pts,
      band: { lo: 90, hi: 110, mean: 100, branch: 'main' },
      direction: 'higher',
      changePoints: [{ t: pts[1].t }],
    }) as unknown as TAny;
    const s = o.series[0];
    expect(s.data.map((d: TAny) => d.value)).toEqual([
      [pts[0].t, 100],
      [pts[1].t, 80],
    ]);
    expect(s.markArea.data[0][0].yAxis).toBe(90);
    expect(s.markArea.data[0][1].yAxis).toBe(110);
    expect(s.markLine.data).toEqual([{ xAxis: pts[1].t }]);
    // Points carry their run for click-through.
    expect(s.data.map((d: TAny) => d.runId)).toEqual(['r1', 'r2']);
    expect(o.useUTC).toBe(true);
    const fmt = o.tooltip.formatter as unknown as (p: unknown) => string;
    expect(fmt({ value: [pts[0].t, 100] })).toContain('main @ abcdef1234');
    expect(fmt({ value: [pts[1].t, 80] })).toContain('environment unhealthy');
  });
  it('omits the band without a threshold', () => {
    const o = buildHistoryOption({
      label: 'x',
      unit: '',
      points: pts,
      band: null,
      direction: 'lower',
      changePoints: [],
    }) as unknown as TAny;
    expect(o.series[0].markArea).toBeUndefined();
  });
});

describe('formatting', () => {
  it('formats numbers and points', () => {
    expect(formatNum(12345.6)).toBe('12,346');
    expect(formatNum(0.01234)).toBe('0.0123');
    expect(formatNum(null)).toBe('—');
    expect(
      describeHistoryPoint({ runId: 'r', t: 0, value: 5, sha: null, branch: null, envHealthy: null }, 'ms'),
    ).toBe('1970-01-01 00:00 UTC<br />5.00 ms<br />Click to open the run');
    // The same instant in New York (the page's zone when the browser is there).
    expect(
      describeHistoryPoint(
        { runId: 'r', t: Date.UTC(2026, 10, 23, 7, 5), value: 5, sha: null, branch: null, envHealthy: null },
        '',
        'America/New_York',
      ),
    ).toBe('2026-11-23 02:05<br />5.00<br />Click to open the run');
  });
});
