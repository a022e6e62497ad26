import { describe, expect, it } from 'vitest';
import {
  buildTimeOption,
  colorOf,
  cpuChart,
  defaultHidden,
  eventMarkers,
  leaseholdersChart,
  legendOf,
  stackMarkers,
  formatValue,
  hasData,
  ioChart,
  limitLines,
  memoryChart,
  rangesChart,
  type TChartsIn,
  type TSeriesIn,
} from './options';

const F = 1_000_000;
const T = 2_000_000;
const s = (node: number, values: (number | null)[]): TSeriesIn => ({
  name: `n${node}`,
  node_id: node,
  data: values.map((v, i) => [F + i * 10_000, v]),
});
const charts = (over: Partial<TChartsIn> = {}): TChartsIn => ({
  from: F,
  to: T,
  ranges_underreplicated: [[F, 0]],
  ranges_unavailable: [[F, 0]],
  leaseholders: [s(1, [240]), s(2, [250])],
  cpu: [s(1, [1.5, 2]), s(2, [3.9, 4])],
  cpu_limit: [s(1, [4, 4]), s(2, [4, 4])],
  throttled: [s(1, [0.01]), s(2, [0.2])],
  mem: [s(1, [5e9]), s(2, [7e9])],
  mem_limit: [s(1, [8e9]), s(2, [16e9])],
  io_read: [s(1, [1e6])],
  io_write: [s(1, [2e6])],
  ...over,
});

type TOpt = {
  series: { name: string; lineStyle: { type: string }; markLine?: { data: { xAxis: number }[] } }[];
  tooltip: { valueFormatter: (v: unknown) => string };
  yAxis: { axisLabel: { formatter: (v: number) => string }; max?: number };
  xAxis: { min: number; max: number };
};

describe('formatValue', () => {
  it('prints units', () => {
    expect(formatValue(3.456, 'cores')).toBe('3.46 cores');
    expect(formatValue(0.185, 'ratio')).toBe('19%');
    expect(formatValue(0.004, 'ratio')).toBe('0.4%');
    expect(formatValue(8 * 1024 ** 3, 'bytes')).toBe('8.0 GiB');
    expect(formatValue(1536, 'Bps')).toBe('1.5 KiB/s');
    expect(formatValue(12345, 'count')).toBe('12,345');
    expect(formatValue(null, 'count')).toBe('—');
    expect(formatValue(Number.NaN, 'bytes')).toBe('—');
  });
});

describe('limitLines', () => {
  it('collapses identical limits into one dashed line over the window', () => {
    const l = limitLines([s(1, [4, 4]), s(2, [4, null])], F, T);
    expect(l).toHaveLength(1);
    expect(l[0]).toMatchObject({
      name: 'limit',
      dashed: true,
      data: [
        [F, 4],
        [T, 4],
      ],
    });
  });
  it('keeps one line per node when limits differ, and none when unlimited', () => {
    expect(limitLines([s(1, [8]), s(2, [16])], F, T).map((l) => l.name)).toEqual(['n1 limit', 'n2 limit']);
    expect(limitLines([s(1, [null])], F, T)).toEqual([]);
  });
});

describe('buildTimeOption', () => {
  it('builds a time axis over the window with unit-aware tooltip and axis labels', () => {
    const o = buildTimeOption(cpuChart(charts())) as unknown as TOpt;
    expect(o.xAxis).toMatchObject({ min: F, max: T });
    expect(o.series.map((x) => x.name)).toEqual(['n1', 'n2', 'limit']);
    // Limits: long dash, thicker, their value at the line end (more than a dash tells them from data).
    expect(o.series[2].lineStyle).toMatchObject({ type: [10, 5], width: 2.5 });
    expect((o.series[2] as unknown as { endLabel: { formatter: () => string } }).endLabel.formatter()).toBe(
      'limit 4.00 cores',
    );
    expect(o.tooltip.valueFormatter(2)).toBe('2.00 cores');
    expect(o.tooltip.valueFormatter(null)).toBe('—');
    expect(o.yAxis.axisLabel.formatter(4)).toBe('4 cores');
    expect(o.yAxis).toMatchObject({ min: 0, max: 4, interval: 1 });
  });
  it('labels memory in bytes with per-node limits when they differ', () => {
    const o = buildTimeOption(memoryChart(charts())) as unknown as TOpt;
    expect(o.series.map((x) => x.name)).toEqual(['n1', 'n2', 'n1 limit', 'n2 limit']);
    // Top 16e9 B = 14.9 GiB → ticks every 5 GiB up to 15 GiB, labelled in GiB.
    expect(o.yAxis).toMatchObject({ min: 0, max: 15 * 1024 ** 3, interval: 5 * 1024 ** 3 });
    expect(o.yAxis.axisLabel.formatter(10 * 1024 ** 3)).toBe('10 GiB');
  });
  it('hides a limit far above the data (toggle in the legend) and keeps the data full-height', () => {
    const c = memoryChart(charts({ mem: [s(1, [1.5e9])], mem_limit: [s(1, [64e9])] }));
    expect([...defaultHidden(c)]).toEqual(['limit']);
    const o = buildTimeOption(c) as unknown as TOpt;
    expect(o.series.map((x) => x.name)).toEqual(['n1']);
    expect(o.yAxis.max).toBe(1.5 * 1024 ** 3); // 1.4 GiB → 0.5 GiB steps
    expect(legendOf(c).find((l) => l.name === 'limit')).toMatchObject({
      hidden: true,
      value: '59.6 GiB',
      style: 'limit',
    });
    const shown = buildTimeOption(c, { hidden: new Set() }) as unknown as TOpt;
    expect(shown.series.map((x) => x.name)).toEqual(['n1', 'limit']);
    expect(shown.yAxis.max).toBe(60 * 1024 ** 3);
  });
  it('gives counts integer ticks, draws a lone sample as a point, and follows the zone', () => {
    const c = leaseholdersChart(charts({ leaseholders: [s(1, [1, 2, 3]), s(2, [2])] }));
    const o = buildTimeOption(c, { utc: true }) as unknown as TOpt & { useUTC: boolean };
    expect(o.yAxis).toMatchObject({ min: 0, max: 3, interval: 1 });
    expect(o.series.map((x) => (x as unknown as { showSymbol: boolean }).showSymbol)).toEqual([false, true]);
    expect(o.useUTC).toBe(true);
    expect((buildTimeOption(c) as unknown as { useUTC: boolean }).useUTC).toBe(false);
  });
  it('shows month and day on a 7-day axis', () => {
    const week = { ...cpuChart(charts()), from: 0, to: 7 * 86_400_000 };
    const o = buildTimeOption(week) as unknown as {
      xAxis: { axisLabel: { formatter: Record<string, string> } };
    };
    expect(o.xAxis.axisLabel.formatter.day).toBe('{MMM} {d}');
  });
  it('puts liveness transitions as markers on the ranges chart', () => {
    const markers = eventMarkers([
      { ts: F + 5, node_id: 3, to: 'DEAD' },
      { ts: F + 9, node_id: 3, to: 'LIVE' },
    ]);
    expect(markers.map((m) => [m.label, m.tone])).toEqual([
      ['n3 DEAD', 'bad'],
      ['n3 LIVE', 'ok'],
    ]);
    const o = buildTimeOption(rangesChart(charts(), markers)) as unknown as TOpt;
    expect(o.series.map((x) => x.name)).toEqual(['under-replicated', 'unavailable']);
    expect(o.series[0].markLine?.data.map((d) => d.xAxis)).toEqual([F + 5, F + 9]);
    expect((o.series[0].markLine as unknown as { label: { show: boolean } }).label.show).toBe(true);
    const many = eventMarkers(Array.from({ length: 9 }, (_, i) => ({ ts: F + i, node_id: 1, to: 'DEAD' })));
    const crowded = buildTimeOption(rangesChart(charts(), many)) as unknown as TOpt;
    expect((crowded.series[0].markLine as unknown as { label: { show: boolean } }).label.show).toBe(false);
  });
  it('stacks close marker labels in lanes instead of overprinting them', () => {
    // Window 1000 ms → markers closer than 80 ms share no lane; in time order 100, 120, 130 take lanes
    // 0, 1, 2; 140 and 160 find none (hover label only); 500 reuses lane 0.
    const m = (ts: number) => ({ ts, label: `m${ts}` });
    expect(stackMarkers([m(100), m(120), m(140), m(160), m(500), m(130)], 0, 1000)).toEqual([
      0, 1, -1, -1, 0, 2,
    ]);
    const o = buildTimeOption({
      ...rangesChart(charts()),
      from: 0,
      to: 1000,
      markers: [m(100), m(120)],
    }) as unknown as {
      series: { markLine: { data: { label: { show: boolean; distance: number[] } }[] } }[];
    };
    expect(o.series[0].markLine.data.map((d) => d.label)).toEqual([
      { show: true, distance: [0, 4] },
      { show: true, distance: [0, 17] },
    ]);
  });
  it('names read and write lines per node for IO', () => {
    const o = buildTimeOption(ioChart(charts())) as unknown as TOpt;
    expect(o.series.map((x) => x.name)).toEqual(['n1 write', 'n1 read']);
    expect(o.tooltip.valueFormatter(2 * 1024 * 1024)).toBe('2.0 MiB/s');
  });
  it('draws io.max limits as dashed lines: one shared line, or one per node when they differ', () => {
    const same = buildTimeOption(
      ioChart(charts({ io_write_limit: [s(1, [5e6, 5e6]), s(2, [5e6])], io_read_limit: [s(1, [null])] })),
    ) as unknown as TOpt;
    expect(same.series.map((x) => x.name)).toEqual(['n1 write', 'n1 read', 'write limit']);
    const limit = same.series[2] as unknown as { data: [number, number][]; lineStyle: { type: string } };
    expect(limit.data).toEqual([
      [F, 5e6],
      [T, 5e6],
    ]);
    expect(limit.lineStyle.type).toEqual([10, 5]);
    expect(same.series[1].lineStyle.type).toBe('dotted'); // reads: dotted, writes solid, limits long-dash
    const differ = buildTimeOption(
      ioChart(charts({ io_read_limit: [s(1, [1e6]), s(2, [2e6])] })),
    ) as unknown as TOpt;
    expect(differ.series.map((x) => x.name)).toEqual([
      'n1 write',
      'n1 read',
      'n1 read limit',
      'n2 read limit',
    ]);
  });
});

describe('helpers', () => {
  it('hasData is false for all-null series', () => {
    expect(hasData([s(1, [null, null])])).toBe(false);
    expect(hasData([s(1, [null, 0])])).toBe(true);
    expect(hasData([])).toBe(false);
  });
  it('gives a node the same colour everywhere', () => {
    expect(colorOf({ node_id: 3, name: 'n3' })).toBe(colorOf({ node_id: 3, name: 'x' }));
    expect(colorOf({ node_id: 1, name: 'n1' })).not.toBe(colorOf({ node_id: 2, name: 'n2' }));
  });
});
