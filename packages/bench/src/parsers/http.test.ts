import { describe, expect, it } from 'vitest';
import { metricOf, readFixture } from './fixture.test-helper';
import { parseHey } from './hey';
import { parseWrk } from './wrk';

describe('parseWrk', () => {
  it('reads --latency output', () => {
    const r = parseWrk(readFixture('wrk_latency.txt'));
    expect(r.incomplete).toBe(false);
    expect(metricOf(r, 'rps')).toBe(66926.05);
    expect(metricOf(r, 'requests')).toBe(200944);
    expect(metricOf(r, 'lat_avg_ms')).toBeCloseTo(0.25367, 9);
    expect(metricOf(r, 'lat_max_ms')).toBeCloseTo(23.32, 9);
    expect(metricOf(r, 'lat_p50_ms')).toBeCloseTo(0.119, 9);
    expect(metricOf(r, 'lat_p99_ms')).toBeCloseTo(3.11, 9);
    expect(metricOf(r, 'transfer_kib_s')).toBeCloseTo(7.91 * 1024, 6);
    expect(metricOf(r, 'errors')).toBe(0);
  });

  it('reads plain output, socket errors and non-2xx', () => {
    const text = readFixture('wrk_plain.txt').replace(
      'Requests/sec:',
      '  Socket errors: connect 1, read 2, write 0, timeout 4\n  Non-2xx or 3xx responses: 12\nRequests/sec:',
    );
    const r = parseWrk(text);
    expect(metricOf(r, 'rps')).toBe(70598.73);
    expect(metricOf(r, 'duration_s')).toBeCloseTo(2.1, 9);
    expect(metricOf(r, 'errors')).toBe(7);
    expect(metricOf(r, 'non_2xx')).toBe(12);
    expect(r.summary.some((m) => m.name === 'lat_p50_ms')).toBe(false);
  });

  it('flags a cut run', () => {
    const r = parseWrk(readFixture('truncated_wrk_latency.txt'));
    expect(r.incomplete).toBe(true);
    expect(metricOf(r, 'lat_avg_ms')).toBeCloseTo(0.25367, 9);
  });
});

describe('parseHey', () => {
  it('reads the summary, histogram, percentiles and status codes', () => {
    const r = parseHey(readFixture('hey.txt'));
    expect(r.incomplete).toBe(false);
    expect(metricOf(r, 'rps')).toBe(35209.5848);
    expect(metricOf(r, 'duration_s')).toBe(0.0852);
    expect(metricOf(r, 'lat_avg_ms')).toBeCloseTo(0.2, 9);
    expect(metricOf(r, 'lat_max_ms')).toBeCloseTo(4.3, 9);
    expect(metricOf(r, 'lat_p99_ms')).toBeCloseTo(2, 9);
    expect(metricOf(r, 'requests')).toBe(3000);
    expect(metricOf(r, 'non_2xx')).toBe(0);
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
    expect(metricOf(r, 'requests')).toBe(3000);
    expect(metricOf(r, 'non_2xx')).toBe(10);
    expect(metricOf(r, 'errors')).toBe(5);
    expect(r.warnings[0]).toMatch(/connection refused/);
  });

  it('flags a cut run', () => {
    const r = parseHey(readFixture('truncated_hey.txt'));
    expect(r.incomplete).toBe(true);
    expect(metricOf(r, 'lat_avg_ms')).toBeCloseTo(0.2, 9);
  });
});
