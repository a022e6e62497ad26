import { describe, expect, it } from 'vitest';
import {
  jsonDepth,
  MAX_JSON_DEPTH,
  ZChartWindow,
  ZDayOrTimestamp,
  ZEpochMsQuery,
  ZJsonObject,
  ZTimestamp,
} from './common';
import { ZRunCreate, ZRunFinishIn, ZRunListIn } from './runs';
import { ZRunFilter } from './compare';

const paths = (r: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  r.success ? [] : r.error!.issues.map((i) => i.path.join('.'));

/** `{a:{a:{…}}}` nested `n` objects deep, built without recursion. */
function nested(n: number): Record<string, unknown> {
  let v: Record<string, unknown> = {};
  for (let i = 1; i < n; i++) v = { a: v };
  return v;
}

describe('dates', () => {
  it('accepts 1970 to 2299 and rejects years outside, naming the field', () => {
    expect(ZTimestamp.safeParse('1970-01-01T00:00:00Z').success).toBe(true);
    expect(ZTimestamp.safeParse('2299-12-31T23:59:59.999Z').success).toBe(true);
    for (const bad of [
      '0000-01-01T00:00:00Z',
      '1969-12-31T23:59:59Z',
      '2300-01-01T00:00:00Z',
      '9999-12-31T00:00:00Z',
    ])
      expect(ZTimestamp.safeParse(bad).success).toBe(false);
    const cluster = 'c';
    const workload = 'w';
    expect(paths(ZRunCreate.safeParse({ cluster, workload, startedAt: '0000-01-01T00:00:00Z' }))).toEqual([
      'startedAt',
    ]);
    expect(
      paths(ZRunFinishIn.safeParse({ id: 'r', status: 'failed', finishedAt: '2300-01-01T00:00:00Z' })),
    ).toEqual(['finishedAt']);
    expect(paths(ZRunListIn.safeParse({ from: '0000-01-01T00:00:00Z' }))).toEqual(['from']);
  });
  it('list filters take a day or a date-time in range', () => {
    expect(ZDayOrTimestamp.safeParse('2026-11-23').success).toBe(true);
    expect(ZDayOrTimestamp.safeParse('2026-11-23T08:00:00Z').success).toBe(true);
    expect(paths(ZRunFilter.safeParse({ from: '0000-01-01' }))).toEqual(['from']);
    expect(paths(ZRunFilter.safeParse({ to: 'yesterday' }))).toEqual(['to']);
  });
  it('epoch ms from query strings stay in range', () => {
    expect(ZEpochMsQuery.parse('1700000000000')).toBe(1_700_000_000_000);
    for (const bad of ['-62167219200000', '99999999999999', 'abc', '1.5'])
      expect(ZEpochMsQuery.safeParse(bad).success).toBe(false);
  });
});

describe('free-form JSON', () => {
  it('measures depth without recursion, stopping past the limit', () => {
    expect(jsonDepth(1)).toBe(0);
    expect(jsonDepth({ a: [1, { b: 2 }] })).toBe(3);
    expect(jsonDepth(nested(100_000))).toBe(Infinity);
  });
  it(`accepts ${MAX_JSON_DEPTH} levels and rejects deeper or larger params, naming the field`, () => {
    expect(ZJsonObject.safeParse(nested(MAX_JSON_DEPTH)).success).toBe(true);
    expect(ZJsonObject.safeParse(nested(MAX_JSON_DEPTH + 1)).success).toBe(false);
    const create = (params: unknown) => ZRunCreate.safeParse({ cluster: 'c', workload: 'w', params });
    expect(paths(create(nested(2000)))).toEqual(['params']);
    expect(paths(create({ big: 'x'.repeat(70_000) }))).toEqual(['params']);
    expect(
      paths(
        ZRunCreate.safeParse({
          cluster: 'c',
          workload: 'w',
          labels: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])),
        }),
      ),
    ).toEqual(['labels']);
  });
});

describe('chart window', () => {
  const to = 1_700_000_000_000;
  it('allows raw only up to 6 hours, naming resolution', () => {
    expect(ZChartWindow.safeParse({ from: to - 6 * 3_600_000, to, resolution: 'raw' }).success).toBe(true);
    expect(paths(ZChartWindow.safeParse({ from: to - 7 * 3_600_000, to, resolution: 'raw' }))).toEqual([
      'resolution',
    ]);
    expect(ZChartWindow.safeParse({ from: to - 30 * 86_400_000, to, resolution: '1h' }).success).toBe(true);
  });
  it('rejects windows outside the date range', () => {
    expect([...new Set(paths(ZChartWindow.safeParse({ from: -1, to })))]).toEqual(['from']);
  });
});
