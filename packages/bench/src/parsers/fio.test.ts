import { describe, expect, it } from 'vitest';
import { parseFio } from './fio';
import { metricOf, readFixture } from './fixture.test-helper';

describe('parseFio', () => {
  it('reads --output-format=json', () => {
    const r = parseFio(readFixture('fio_randrw.json'));
    expect(r.workload).toBe('randrw');
    expect(r.incomplete).toBe(false);
    expect(metricOf(r, 'read_iops')).toBeCloseTo(13629.444998, 6);
    expect(metricOf(r, 'write_iops')).toBeCloseTo(13595.87903, 6);
    expect(metricOf(r, 'read_bw_kib_s')).toBe(54517);
    expect(metricOf(r, 'write_bw_kib_s')).toBe(54383);
    expect(metricOf(r, 'read_lat_avg_ms')).toBeCloseTo(0.063618119, 6);
    expect(metricOf(r, 'read_lat_p99_ms')).toBeCloseTo(0.109056, 6);
    expect(metricOf(r, 'write_lat_max_ms')).toBeCloseTo(0.169952, 9);
    expect(r.summary.find((m) => m.name === 'read_iops')?.direction).toBe('higher');
    expect(r.summary.find((m) => m.name === 'read_lat_p99_ms')?.direction).toBe('lower');
  });

  it('reads the normal text report', () => {
    const r = parseFio(readFixture('fio_randrw.txt'));
    expect(r.workload).toBe('randrw');
    expect(metricOf(r, 'read_iops')).toBeCloseTo(26493 / 2.001, 6);
    expect(metricOf(r, 'write_iops')).toBeCloseTo(26482 / 2.001, 6);
    expect(metricOf(r, 'read_bw_kib_s')).toBeCloseTo(51.7 * 1024, 6);
    expect(metricOf(r, 'read_lat_avg_ms')).toBeCloseTo(0.06608158, 8);
    expect(metricOf(r, 'read_lat_p95_ms')).toBeCloseTo(0.08, 9);
    expect(metricOf(r, 'write_lat_p99_ms')).toBeCloseTo(0.006816, 9);
    const seq = parseFio(readFixture('fio_seqread.txt'));
    expect(seq.workload).toBe('read');
    expect(metricOf(seq, 'read_bw_kib_s')).toBeCloseTo(1509 * 1024, 6);
    expect(metricOf(seq, 'read_lat_max_ms')).toBeCloseTo(8.684, 9);
    expect(seq.summary.some((m) => m.name.startsWith('write_'))).toBe(false);
  });

  it('flags cut JSON and text, keeping what is there', () => {
    const json = parseFio(readFixture('truncated_fio_randrw.json'));
    expect(json.incomplete).toBe(true);
    expect(metricOf(json, 'read_bw_kib_s')).toBe(54517);
    expect(metricOf(json, 'write_bw_kib_s')).toBe(54383);
    const text = parseFio(readFixture('truncated_fio_randrw.txt'));
    expect(text.incomplete).toBe(true);
    expect(metricOf(text, 'read_iops')).toBe(13200);
  });
});
