import { describe, expect, it } from 'vitest';
import { parseOutput } from './parse-output';
import { expectMetrics, metricOf, readFixture } from './fixture.test-helper';
import { parseSysbench, percentileMetric } from './sysbench';

/** The values of an interval in which no query ran: every rate is 0. */
const IDLE = {
  tps: 0,
  qps: 0,
  read_qps: 0,
  write_qps: 0,
  other_qps: 0,
  errors_per_s: 0,
  reconnects_per_s: 0,
};

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

describe('parseSysbench on stalled and failed runs (fixtures/failed, SOURCES.md)', () => {
  it('a stall: seconds in which no transaction finished have no latency, also when queries ran', () => {
    // OceanBase docs: a leader killed with kill -9 under oltp_read_write, 400 threads, --report-interval=1.
    const r = parseOutput(readFixture('failed/sysbench-oceanbase-leader-killed-stall.txt'));
    expect(r.tool).toBe('sysbench');
    const at = (s: number) => r.samples.find((x) => x.elapsed_s === s)?.values;
    expect(at(21)).toMatchObject({ tps: 267, lat_p99_ms: 831.46 });
    for (const s of [22, 23, 24, 25]) {
      expect(at(s)).toMatchObject({ tps: 0, qps: 0 });
      expect(at(s)).not.toHaveProperty('lat_p99_ms');
    }
    // Reconnecting threads ran 211 queries, but no transaction finished: still no latency.
    expect(at(26)).toMatchObject({ tps: 0, qps: 211, reconnects_per_s: 178 });
    expect(at(26)).not.toHaveProperty('lat_p99_ms');
    expect(at(27)).toMatchObject({ tps: 3, lat_p99_ms: 6594.16 });
    expect(r.samples).toHaveLength(19);
    // An excerpt without the totals: incomplete, no summary made up, no error (the run went on).
    expect(r.incomplete).toBe(true);
    expect(r.summary).toEqual([]);
    expect(r.error).toBeUndefined();
  });

  it('a recorded stall (server stopped with SIGSTOP): 0-tps seconds are gaps, the totals are the tool’s', () => {
    const r = parseSysbench(readFixture('failed/sysbench-pgsql-stall.txt'));
    expect(r.samples.map((s) => s.values.lat_p95_ms ?? null)).toEqual([
      17.63,
      13.46,
      15.83,
      53.85,
      null,
      null,
      27.66,
      18.28,
      15,
      11.24,
    ]);
    expect(r.samples[4].values).toEqual(IDLE);
    expect(r.incomplete).toBe(false);
    expect(r.error).toBeUndefined();
    expectMetrics(r, { tps: 184.99, transactions: 1853, lat_p95_ms: 16.41, lat_max_ms: 3231.91 });
  });

  it('a FATAL query error mid-run fails the run with the first FATAL line (vitess-consul-poc)', () => {
    const r = parseOutput(readFixture('failed/sysbench-vitess-consul-fatal.txt'));
    expect(r.tool).toBe('sysbench');
    expect(r.error).toBe(
      "FATAL: mysql_drv_query() returned error 1105 (vtgate: http://vtgate-69d69486f4-4lm8f:8080/: paramsAnyShard: keyspace peak-test fetch error: Unexpected response code: 500) for query 'SELECT c FROM sbtest1 WHERE id=271'",
    );
    expect(r.samples).toEqual([
      {
        elapsed_s: 16,
        values: IDLE,
      },
    ]);
    expect(r.incomplete).toBe(true);
    expect(r.summary).toEqual([]);
  });

  it('a recorded FATAL after "Threads started!" (table renamed mid-run): failed, incomplete, intervals kept', () => {
    const r = parseSysbench(readFixture('failed/sysbench-pgsql-fatal.txt'));
    expect(r.error).toBe('FATAL: PQexecPrepared() failed: 7 relation "sbtest1" does not exist');
    expect(r.incomplete).toBe(true);
    expect(r.workload).toBe('oltp_read_only');
    expect(r.samples.map((s) => [s.elapsed_s, s.values.tps, s.values.lat_p95_ms])).toEqual([
      [1, 214.05, 18.95],
      [2, 250.13, 21.89],
      [3, 288.69, 15.83],
    ]);
    expect(r.summary).toEqual([]);
  });

  it('a run whose output stops (sysbench crashed when the server stopped): incomplete, not failed by the parser', () => {
    const r = parseSysbench(readFixture('failed/sysbench-pgsql-server-stopped.txt'));
    expect(r.incomplete).toBe(true);
    expect(r.error).toBeUndefined();
    expect(r.samples).toHaveLength(3);
    expect(r.samples[2].values).toMatchObject({ tps: 96.96, lat_p95_ms: 38.94 });
    expect(r.summary).toEqual([]);
  });

  it('a FATAL before any interval (no connection) is a failed run without metrics, not a parse error', () => {
    const r = parseSysbench(
      [
        'sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)',
        '',
        'FATAL: Connection to database failed: connection to server at "127.0.0.1", port 9 failed: Connection refused',
      ].join('\n'),
    );
    expect(r.error).toMatch(/^FATAL: Connection to database failed/);
    expect(r.summary).toEqual([]);
  });
});
