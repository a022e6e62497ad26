import { describe, expect, it } from 'vitest';
import { expectMetrics, metricOf, readFixture } from './fixture.test-helper';
import { parseHey } from './hey';
import { parseWrk } from './wrk';

describe('parseWrk', () => {
  it('reads --latency output', () => {
    const r = parseWrk(readFixture('wrk_latency.txt'));
    expect(r.incomplete).toBe(false);
    expectMetrics(r, {
      rps: 66926.05,
      requests: 200944,
      lat_avg_ms: expect.closeTo(0.25367, 9),
      lat_max_ms: expect.closeTo(23.32, 9),
      lat_p50_ms: expect.closeTo(0.119, 9),
      lat_p99_ms: expect.closeTo(3.11, 9),
      transfer_kib_s: expect.closeTo(7.91 * 1024, 6),
      errors: 0,
    });
  });

  it('reads plain output, socket errors and non-2xx', () => {
    const text = readFixture('wrk_plain.txt').replace(
      'Requests/sec:',
      '  Socket errors: connect 1, read 2, write 0, timeout 4\n  Non-2xx or 3xx responses: 12\nRequests/sec:',
    );
    const r = parseWrk(text);
    expectMetrics(r, {
      rps: 70598.73,
      duration_s: expect.closeTo(2.1, 9),
      errors: 7,
      non_2xx: 12,
    });
    expect(r.summary.some((m) => m.name === 'lat_p50_ms')).toBe(false);
  });
});

describe('parseHey', () => {
  it('reads the summary, histogram, percentiles and status codes', () => {
    const r = parseHey(readFixture('hey.txt'));
    expect(r.incomplete).toBe(false);
    expectMetrics(r, {
      rps: 35209.5848,
      duration_s: 0.0852,
      lat_avg_ms: expect.closeTo(0.2, 9),
      lat_max_ms: expect.closeTo(4.3, 9),
      lat_p99_ms: expect.closeTo(2, 9),
      requests: 3000,
      non_2xx: 0,
    });
    expect(r.histogram).toHaveLength(11);
    expect(r.histogram?.[1]).toEqual({ value_ms: 0, count: 2803 });
    expect(r.histogram?.reduce((s, b) => s + b.count, 0)).toBe(3000);
  });

  it('counts errors and non-2xx responses', () => {
    const text = readFixture('hey.txt').replace(
      '  [200]\t3000 responses',
      '  [200]\t2990 responses\n  [503]\t10 responses\n\nError distribution:\n  [5]\tGet "http://127.0.0.1:1/": dial tcp: connection refused',
    );
    const r = parseHey(text);
    expectMetrics(r, {
      requests: 3000,
      non_2xx: 10,
      errors: 5,
    });
    expect(r.warnings[0]).toMatch(/connection refused/);
  });
});

describe.each([
  { name: 'parseWrk', parse: parseWrk, file: 'truncated_wrk_latency.txt', latAvgMs: 0.25367 },
  { name: 'parseHey', parse: parseHey, file: 'truncated_hey.txt', latAvgMs: 0.2 },
])('$name', ({ parse, file, latAvgMs }) => {
  it('flags a cut run', () => {
    const r = parse(readFixture(file));
    expect(r.incomplete).toBe(true);
    expect(metricOf(r, 'lat_avg_ms')).toBeCloseTo(latAvgMs, 9);
  });
});

describe('parseWrk on real failed runs (fixtures/failed, SOURCES.md)', () => {
  it('no request completed (wg/wrk#497): failed, errors as count and rate, no 0-latency', () => {
    const r = parseWrk(readFixture('failed/wrk-issue-497-read-errors.txt'));
    expect(r.error).toBe('no request completed: 236 socket errors');
    expectMetrics(r, { requests: 0, rps: 0, errors: 236, errors_per_s: expect.closeTo(47.2, 9) });
    expect(r.summary.filter((m) => m.name.startsWith('lat_'))).toEqual([]);
  });

  it('connect errors under load (wg/wrk#371): a count and a rate beside the requests', () => {
    const r = parseWrk(readFixture('failed/wrk-issue-371-connect-errors.txt'));
    expect(r.error).toBeUndefined();
    expect(r.incomplete).toBe(false);
    expectMetrics(r, {
      requests: 517458,
      rps: 17193.2,
      errors: 157,
      errors_per_s: expect.closeTo(157 / 30.1, 9),
      non_2xx: 517458,
      lat_avg_ms: expect.closeTo(14.38, 9),
    });
  });
});

describe('parseHey on a failed run (fixtures/failed, SOURCES.md)', () => {
  it('connection refused: failed, 0 served, errors as count and rate, no 0-latency', () => {
    const r = parseHey(readFixture('failed/hey-connection-refused.txt'));
    expect(r.error).toBe(
      'no response: 20 request errors (Get "http://127.0.0.1:9/": dial tcp 127.0.0.1:9: connect: connection refused)',
    );
    expectMetrics(r, { requests: 0, rps: 0, errors: 20, errors_per_s: expect.closeTo(20 / 0.0256, 6) });
    expect(r.summary.filter((m) => m.name.startsWith('lat_'))).toEqual([]);
  });

  it('a run with responses keeps its latency and adds errors/s', () => {
    const r = parseHey(readFixture('hey.txt'));
    expect(r.error).toBeUndefined();
    expect(metricOf(r, 'errors_per_s')).toBe(0);
    expect(r.summary.some((m) => m.name === 'lat_max_ms')).toBe(true);
  });
});
