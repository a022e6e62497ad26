import { describe, expect, it } from 'vitest';
import { expectMetrics, metricOf, readFixture } from './fixture.test-helper';
import { parsePgbench } from './pgbench';

describe('parsePgbench', () => {
  it('reads TPC-B progress, summary and per-statement latencies', () => {
    const r = parsePgbench(readFixture('pgbench_tpcb.txt'));
    expect(r.workload).toBe('tpcb-like');
    expect(r.incomplete).toBe(false);
    expect(r.samples).toEqual([
      { elapsed_s: 1, values: { tps: 838.8, lat_avg_ms: 2.32, lat_stddev_ms: 3.153, errors_per_s: 0 } },
      { elapsed_s: 2, values: { tps: 839.1, lat_avg_ms: 2.391, lat_stddev_ms: 2.968, errors_per_s: 0 } },
      { elapsed_s: 3, values: { tps: 2066, lat_avg_ms: 0.965, lat_stddev_ms: 0.818, errors_per_s: 0 } },
      { elapsed_s: 4, values: { tps: 2287.2, lat_avg_ms: 0.875, lat_stddev_ms: 0.459, errors_per_s: 0 } },
    ]);
    expectMetrics(r, {
      tps: 1514.47335,
      transactions: 6033,
      lat_avg_ms: 1.318,
      lat_stddev_ms: 1.826,
      conn_time_ms: 19.902,
      errors_pct: 0,
    });
    expect(r.statements).toHaveLength(11);
    expect(r.statements?.[4]).toEqual({ statement: 'BEGIN;', latency_ms: 0.052, failures: 0 });
    expect(r.statements?.[8]).toEqual({
      statement: 'UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;',
      latency_ms: 0.343,
      failures: 0,
    });
  });

  it('reads select-only and older formats', () => {
    const r = parsePgbench(readFixture('pgbench_select_only.txt'));
    expect(r.workload).toBe('select-only');
    expect(r.samples.map((s) => s.values.tps)).toEqual([30779, 31956.2, 33363.6]);
    expect(metricOf(r, 'tps')).toBe(32201.025541);
    const old = parsePgbench(
      [
        'progress: 5.0 s, 100.0 tps, lat 9.9 ms stddev 1.0',
        'progress: 10.0 s, 110.0 tps, lat 9.0 ms stddev 1.1, lag 0.5 ms, 10 failed',
        'transaction type: bench.sql',
        'tps = 104.5 (including connections establishing)',
        'tps = 105.0 (excluding connections establishing)',
        'statement latencies in milliseconds:',
        '         9.100  SELECT 1;',
      ].join('\n'),
    );
    expect(old.workload).toBe('bench.sql');
    expect(old.samples[1].values).toMatchObject({ lag_ms: 0.5, errors_per_s: 2 });
    expect(metricOf(old, 'tps')).toBe(105);
    expect(old.statements).toEqual([{ statement: 'SELECT 1;', latency_ms: 9.1, failures: null }]);
  });

  it('flags a cut run', () => {
    const r = parsePgbench(readFixture('truncated_pgbench_tpcb.txt'));
    expect(r.incomplete).toBe(true);
    expect(r.samples).toHaveLength(3);
    expect(r.summary).toEqual([]);
  });
});

describe('parsePgbench on a failed run (fixtures/failed, SOURCES.md)', () => {
  it('no connection: the run failed with the tool error, no metrics and no 0-latency', () => {
    const r = parsePgbench(readFixture('failed/pgbench-connection-refused.txt'));
    expect(r.error).toBe(
      'pgbench: error: connection to server at "127.0.0.1", port 5433 failed: Connection refused',
    );
    expect(r.summary).toEqual([]);
    expect(r.samples).toEqual([]);
    expect(r.incomplete).toBe(true);
  });
});

describe('parsePgbench on a run with aborted clients (fixtures/failed, SOURCES.md)', () => {
  it('failed with pgbench’s own message, incomplete, not a complete comparable result', () => {
    const r = parsePgbench(readFixture('failed/pgbench-client-aborted.txt'));
    expect(r.error).toBe(
      'pgbench: error: client 0 aborted in command 4 (SQL) of script 0; perhaps the backend died while processing',
    );
    expect(r.incomplete).toBe(true);
    expect(r.warnings).toContain('pgbench: error: Run was aborted; the above results are incomplete.');
    expect(r.warnings).toContain('FATAL:  terminating connection due to administrator command');
    expect(r.samples.map((s) => s.values.tps)).toEqual([283.9, 289.9, 401, 305.2, 427, 372.6, 285.3, 341]);
    // The totals pgbench printed are kept, for the record, beside the failed and incomplete marks.
    expectMetrics(r, { tps: 339.492889, transactions: 2708 });
  });

  it('reads the older forms of the abort lines', () => {
    for (const last of [
      'pgbench: fatal: Run was aborted; the above results are incomplete.',
      'Run was aborted; the above results are incomplete.',
    ]) {
      const r = parsePgbench(
        [
          'client 3 aborted in command 1 (SQL) of script 0; perhaps the backend died while processing',
          'transaction type: /tmp/test.sql',
          'number of transactions actually processed: 2051316',
          'tps = 3418.414178 (excluding connections establishing)',
          last,
        ].join('\n'),
      );
      expect(r.error).toBe(
        'client 3 aborted in command 1 (SQL) of script 0; perhaps the backend died while processing',
      );
      expect(r.incomplete).toBe(true);
    }
  });
});
