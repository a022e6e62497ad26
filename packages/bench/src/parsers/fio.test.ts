import { describe, expect, it } from 'vitest';
import { parseFio } from './fio';
import { expectMetrics, metricOf, readFixture } from './fixture.test-helper';

describe('parseFio', () => {
  it('reads --output-format=json', () => {
    const r = parseFio(readFixture('fio_randrw.json'));
    expect(r.workload).toBe('randrw');
    expect(r.incomplete).toBe(false);
    expectMetrics(r, {
      read_iops: expect.closeTo(13629.444998, 6),
      write_iops: expect.closeTo(13595.87903, 6),
      read_bw_kib_s: 54517,
      write_bw_kib_s: 54383,
      read_lat_avg_ms: expect.closeTo(0.063618119, 6),
      read_lat_p99_ms: expect.closeTo(0.109056, 6),
      write_lat_max_ms: expect.closeTo(0.169952, 9),
    });
    expect(r.summary.find((m) => m.name === 'read_iops')?.direction).toBe('higher');
    expect(r.summary.find((m) => m.name === 'read_lat_p99_ms')?.direction).toBe('lower');
  });

  it('reads the normal text report', () => {
    const r = parseFio(readFixture('fio_randrw.txt'));
    expect(r.workload).toBe('randrw');
    expectMetrics(r, {
      read_iops: expect.closeTo(26493 / 2.001, 6),
      write_iops: expect.closeTo(26482 / 2.001, 6),
      read_bw_kib_s: expect.closeTo(51.7 * 1024, 6),
      read_lat_avg_ms: expect.closeTo(0.06608158, 8),
      read_lat_p95_ms: expect.closeTo(0.08, 9),
      write_lat_p99_ms: expect.closeTo(0.006816, 9),
    });
    const seq = parseFio(readFixture('fio_seqread.txt'));
    expect(seq.workload).toBe('read');
    expectMetrics(seq, {
      read_bw_kib_s: expect.closeTo(1509 * 1024, 6),
      read_lat_max_ms: expect.closeTo(8.684, 9),
    });
    expect(seq.summary.some((m) => m.name.startsWith('write_'))).toBe(false);
  });

  it('flags cut JSON and text, keeping what is there', () => {
    const json = parseFio(readFixture('truncated_fio_randrw.json'));
    expect(json.incomplete).toBe(true);
    expectMetrics(json, {
      read_bw_kib_s: 54517,
      write_bw_kib_s: 54383,
    });
    const text = parseFio(readFixture('truncated_fio_randrw.txt'));
    expect(text.incomplete).toBe(true);
    expect(metricOf(text, 'read_iops')).toBe(13200);
  });
});
