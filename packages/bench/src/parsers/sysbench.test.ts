import { describe, expect, it } from 'vitest';
import { parseOutput } from './parse-output';
import { expectMetrics, metricOf, readFixture } from './fixture.test-helper';
import { parseSysbench, percentileMetric } from './sysbench';

describe('parseSysbench', () => {
  it('reads oltp_write_only over the pgsql driver (recorded against CockroachDB)', () => {
    const r = parseSysbench(readFixture('sysbench_oltp_write_only_pgsql.txt'));
    expect(r.workload).toBe('oltp_write_only');
    expect(r.incomplete).toBe(false);
    expect(r.samples).toHaveLength(6);
    expect(r.samples[0]).toEqual({
      elapsed_s: 10,
      values: {
        tps: 80.86,
        qps: 485.66,
        read_qps: 0,
        write_qps: 84.66,
        other_qps: 401,
        lat_p95_ms: 20.37,
        errors_per_s: 0,
        reconnects_per_s: 0,
      },
    });
    expect(r.samples[5].elapsed_s).toBe(60);
    expectMetrics(r, {
      tps: 80.48,
      qps: 482.9,
      transactions: 4830,
      lat_avg_ms: 12.42,
      lat_p95_ms: 21.11,
      lat_max_ms: 32.9,
      duration_s: 60.0081,
    });
    const tps = r.summary.find((m) => m.name === 'tps');
    expect(tps).toMatchObject({ unit: 'tx/s', direction: 'higher' });
    expect(r.summary.find((m) => m.name === 'lat_p95_ms')?.direction).toBe('lower');
  });

  it('reads oltp_read_only with --histogram against local PostgreSQL', () => {
    const r = parseSysbench(readFixture('sysbench_oltp_read_only_pgsql.txt'));
    expect(r.workload).toBe('oltp_read_only');
    expect(r.samples.map((s) => s.values.tps)).toEqual([2670.99, 3154.62, 3277.95, 3126.06]);
    expectMetrics(r, {
      tps: 3052.72,
      qps: 48843.46,
      lat_p95_ms: 1.44,
    });
    expect(r.histogram).toHaveLength(157);
    expect(r.histogram?.[0]).toEqual({ value_ms: 0.424, count: 11 });
    expect(r.histogram?.at(-1)).toEqual({ value_ms: 40.37, count: 1 });
    expect(r.histogram?.reduce((s, b) => s + b.count, 0)).toBe(12235);
  });

  it('reads --percentile=99 and ignored errors', () => {
    const r = parseSysbench(readFixture('sysbench_oltp_write_only_pgsql_local.txt'));
    expect(r.samples[0].values.lat_p99_ms).toBe(2.11);
    expect(r.samples[2].values.errors_per_s).toBe(11);
    expectMetrics(r, {
      lat_p99_ms: 7.7,
      errors: 27,
      errors_per_s: 6.74,
    });
    expect(r.summary.find((m) => m.name === 'errors_per_s')?.direction).toBe('lower');
  });

  it('reads cpu with a histogram', () => {
    const r = parseSysbench(readFixture('sysbench_cpu.txt'));
    expect(r.workload).toBe('cpu');
    expect(r.samples).toEqual([
      { elapsed_s: 1, values: { events_per_s: 2522.88, lat_p95_ms: 0.42 } },
      { elapsed_s: 2, values: { events_per_s: 2539.62, lat_p95_ms: 0.42 } },
    ]);
    expect(metricOf(r, 'events_per_s')).toBe(2534.03);
    expect(r.histogram?.reduce((s, b) => s + b.count, 0)).toBe(7614);
  });

  it('reads memory and fileio', () => {
    const mem = parseSysbench(readFixture('sysbench_memory.txt'));
    expect(mem.workload).toBe('memory');
    expect(mem.samples[0].values.mem_bw_kib_s).toBeCloseTo(5811.42 * 1024, 6);
    expectMetrics(mem, {
      ops_per_s: 6051616.93,
      mem_bw_kib_s: expect.closeTo(5909.78 * 1024, 6),
    });
    const io = parseSysbench(readFixture('sysbench_fileio.txt'));
    expect(io.workload).toBe('fileio');
    expect(io.samples[0].values).toMatchObject({ fsync_per_s: 2615.96, lat_p95_ms: 0.006 });
    expect(io.samples[0].values.read_bw_kib_s).toBeCloseTo(613.33 * 1024, 6);
    expectMetrics(io, {
      read_iops: 38985.56,
      write_iops: 25990.38,
      write_bw_kib_s: expect.closeTo(406.1 * 1024, 6),
    });
  });

  it('flags a cut run and drops the partial last line', () => {
    const r = parseOutput(readFixture('truncated_sysbench_oltp_read_only.txt'));
    expect(r.tool).toBe('sysbench');
    expect(r.incomplete).toBe(true);
    expect(r.warnings.some((w) => w.startsWith('incomplete'))).toBe(true);
    expect(r.samples).toEqual([
      {
        elapsed_s: 1,
        values: expect.objectContaining({ tps: 2670.99, qps: 42750.78, lat_p95_ms: 2.48 }),
      },
    ]);
    expect(r.summary).toEqual([]);
  });

  it('names percentiles', () => {
    expect(percentileMetric('95')).toBe('lat_p95_ms');
    expect(percentileMetric('99.9')).toBe('lat_p999_ms');
    expect(percentileMetric('100')).toBe('lat_max_ms');
  });
});
