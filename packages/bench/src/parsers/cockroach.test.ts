import { describe, expect, it } from 'vitest';
import { parseCockroachWorkload } from './cockroach';
import { expectMetrics, metricOf, readFixture } from './fixture.test-helper';

describe('parseCockroachWorkload', () => {
  it('reads bank per-second lines and the result', () => {
    const r = parseCockroachWorkload(readFixture('cockroach_workload_bank.txt'));
    expect(r.workload).toBe('bank');
    expect(r.incomplete).toBe(false);
    expect(r.samples).toHaveLength(20);
    expect(r.samples[0]).toEqual({
      elapsed_s: 1,
      values: {
        ops_per_s: 2929.8,
        errors_per_s: 0,
        lat_p50_ms: 3,
        lat_p95_ms: 15.2,
        lat_p99_ms: 50.3,
        lat_max_ms: 234.9,
      },
    });
    expectMetrics(r, {
      ops_per_s: 3442.5,
      ops: 206551,
      lat_avg_ms: 4.6,
      lat_p99_ms: 19.9,
      lat_max_ms: 469.8,
    });
    expect(r.summary.some((m) => m.name.startsWith('transfer.'))).toBe(false);
  });

  it('reads ycsb per-operation lines and totals', () => {
    const r = parseCockroachWorkload(readFixture('cockroach_workload_ycsb.txt'));
    expect(r.workload).toBe('ycsb');
    expect(r.samples).toHaveLength(10);
    expect(r.samples[0].values['read.ops_per_s']).toBe(11011.5);
    expect(r.samples[0].values['update.lat_p99_ms']).toBe(7.3);
    expect(r.samples[0].values.ops_per_s).toBeCloseTo(11011.5 + 581.7, 6);
    expectMetrics(r, {
      'read.ops': 8576709,
      'update.ops_per_s': 751.7,
      'update.lat_p99_ms': 6.6,
      ops_per_s: 15046.2,
      ops: 9027735,
    });
    expect(r.summary.find((m) => m.name === 'read.lat_max_ms')?.direction).toBe('lower');
  });

  it('reads tpcc totals, tpmC, efc and audit checks', () => {
    const r = parseCockroachWorkload(readFixture('cockroach_workload_tpcc.txt'));
    expect(r.workload).toBe('tpcc');
    expect(r.incomplete).toBe(false);
    expectMetrics(r, {
      tpmC: 12,
      efc_pct: 93.3,
      'newOrder.ops': 120,
      'newOrder.lat_p90_ms': 23.1,
      'delivery.lat_avg_ms': 32.6,
      ops: 289,
      audit_failures: 0,
    });
    expect(r.summary.find((m) => m.name === 'tpmC')).toMatchObject({ unit: 'tx/min', direction: 'higher' });
  });

  it('reads the short tpcc output with only the tpmC line', () => {
    const r = parseCockroachWorkload(readFixture('cockroach_workload_tpcc_short.txt'));
    expect(r.workload).toBe('tpcc');
    expectMetrics(r, {
      tpmC: 153,
      efc_pct: 119,
      'newOrder.lat_p95_ms': 48.2,
    });
  });

  it('reports failed audit checks', () => {
    const text = readFixture('cockroach_workload_tpcc.txt').replace(
      'Audit check 9.2.2.5.3: PASS',
      'Audit check 9.2.2.5.3: FAIL: 3 rows mismatched',
    );
    const r = parseCockroachWorkload(text);
    expect(metricOf(r, 'audit_failures')).toBe(1);
    expect(r.warnings).toContain('Audit check 9.2.2.5.3: FAIL: 3 rows mismatched');
  });

  it('flags a cut run', () => {
    const r = parseCockroachWorkload(readFixture('truncated_cockroach_workload_bank.txt'));
    expect(r.incomplete).toBe(true);
    expect(r.samples).toHaveLength(8);
    expect(r.samples[7].values.ops_per_s).toBe(3317.6);
    // Partial: the last ops/sec(cum) printed, no latency (interval percentiles are not cumulative).
    expectMetrics(r, { ops_per_s: 3294.2, ops: 26354, duration_s: 8, errors: 0 });
    expect(r.summary.some((m) => m.name.startsWith('lat_'))).toBe(false);
  });

  describe('real outputs (fixtures/real, see SOURCES)', () => {
    it.each([
      ['v19.2-workload-bank.txt', 'bank', 1407.6],
      ['v19.2-workload-kv.txt', 'kv', 4601.0],
      ['v21.2-workload-ycsb.txt', 'ycsb', 7880.2],
      ['v21.2-workload-movr.txt', 'movr', 1421.6],
    ])('%s: workload %s from its operation names, ops/s %d', (file, workload, opsPerS) => {
      const r = parseCockroachWorkload(readFixture(`real/${file}`));
      expect(r.workload).toBe(workload);
      expect(r.incomplete).toBe(false);
      expect(r.error).toBeUndefined();
      expect(metricOf(r, 'ops_per_s')).toBe(opsPerS);
      expect(r.samples.length).toBeGreaterThan(1);
    });

    it('reads tpcc runs (tpmC line) of v19.2 and v21.2', () => {
      for (const f of ['v19.2-workload-tpcc-10-warehouses.txt', 'v21.2-workload-tpcc-local.txt']) {
        const r = parseCockroachWorkload(readFixture(`real/${f}`));
        expect(r.workload).toBe('tpcc');
        expectMetrics(r, {
          tpmC: 121.6,
          efc_pct: 94.6,
        });
      }
    });

    it('keeps an excerpt that stops mid-run as incomplete ycsb', () => {
      const r = parseCockroachWorkload(readFixture('real/v19.2-workload-ycsb-fault-tolerance.txt'));
      expect(r.workload).toBe('ycsb');
      expect(r.incomplete).toBe(true);
      expect(r.samples[0].values['read.ops_per_s']).toBe(902.8);
    });
  });

  describe('workload names and failures', () => {
    const HEAD = '_elapsed___errors__ops/sec(inst)___ops/sec(cum)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)';
    const tick = (s: number, op: string, errors = 0) =>
      `${String(s).padStart(7)}s ${String(errors).padStart(8)}        100.0        100.0      1.0      2.0      3.0      4.0 ${op}`;
    const RESULT = [
      '',
      '_elapsed___errors_____ops(total)___ops/sec(cum)__avg(ms)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)__result',
      '    2.0s        0            200          100.0      1.0      1.0      2.0      3.0      4.0',
    ];

    it.each([
      ['roachmart', ['local', 'remote']],
      ['sqlsmith', ['generate']],
      ['tpcc', ['newOrder', 'payment']],
      ['kv', ['read', 'write']],
    ])('names %s from its operations', (name, ops) => {
      const text = [HEAD, ...ops.map((op) => tick(1, op)), ...RESULT].join('\n');
      expect(parseCockroachWorkload(text).workload).toBe(name);
    });

    it('names the generator from a roachtest log file name', () => {
      const text = ['run_165945.744_n2_workload_run_ledger.log:', HEAD, tick(1, 'balance'), ...RESULT].join(
        '\n',
      );
      expect(parseCockroachWorkload(text).workload).toBe('ledger');
    });

    it('fails the run when the output ends in an error after the last tick', () => {
      const text = [
        HEAD,
        tick(1, 'transfer'),
        tick(2, 'transfer'),
        'Error: pq: relation "bank.bank" does not exist',
        '',
      ].join('\n');
      const r = parseCockroachWorkload(text);
      expect(r.error).toBe('Error: pq: relation "bank.bank" does not exist');
      expect(r.incomplete).toBe(true);
    });

    it('keeps an error that ticks continued after as a warning, with E log lines and the errors column', () => {
      const text = [
        'E231120 10:00:01.123456 123 workload/cli/run.go:427  ERROR: restart transaction (SQLSTATE 40001)',
        HEAD,
        tick(1, 'transfer', 0),
        'Error: transient failure',
        tick(2, 'transfer', 3),
        ...RESULT.slice(0, 2),
        '    2.0s        3            200          100.0      1.0      1.0      2.0      3.0      4.0',
      ].join('\n');
      const r = parseCockroachWorkload(text);
      expect(r.error).toBeUndefined();
      expect(r.warnings).toEqual([
        'E231120 10:00:01.123456 123 workload/cli/run.go:427  ERROR: restart transaction (SQLSTATE 40001)',
        'Error: transient failure',
        'the workload reported 3 error(s) (errors column)',
      ]);
    });
  });

  describe('runs that stalled, failed or were cut short', () => {
    it('stores seconds with no operations as missing latency, and summarises from the last cumulative columns (real stall, issue 47202)', () => {
      const r = parseCockroachWorkload(readFixture('real/issue-47202-workload-kv-stall.txt'));
      expect(r.workload).toBe('kv');
      expect(r.incomplete).toBe(true);
      expect(r.samples).toHaveLength(6);
      expect(r.samples[0].values).toMatchObject({ ops_per_s: 22109.1, lat_p95_ms: 14.7 });
      for (const s of r.samples.slice(1)) {
        expect(s.values.ops_per_s).toBe(0);
        expect(Object.keys(s.values).filter((k) => k.startsWith('lat_'))).toEqual([]);
      }
      // ops/sec(cum) of the last tick, not a mean of the per-second rate (which would be 3684.9).
      expectMetrics(r, {
        ops_per_s: 4209.8,
        ops: 25259,
        duration_s: 6,
        errors: 0,
        errors_per_s: 0,
        errors_pct: 0,
      });
      expect(r.summary.some((m) => m.name.startsWith('lat_'))).toBe(false);
      expect(r.warnings.some((w) => w.startsWith('partial: no totals block'))).toBe(true);
    });

    it('fails a run whose output ends in Error:, keeping the partial summary and the cumulative errors as a count', () => {
      const HEAD = '_elapsed___errors__ops/sec(inst)___ops/sec(cum)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)';
      const text = [
        HEAD,
        '    1.0s        0          900.0          900.0      1.1      2.1      4.1     62.9 transfer',
        '    2.0s        2          100.0          500.0      1.0      2.9      5.5      8.9 transfer',
        '    3.0s        2            0.0          333.3      0.0      0.0      0.0      0.0 transfer',
        '    4.0s        5           50.0          262.5      9.0     11.8     12.0     12.0 transfer',
        'Error: ERROR: result is ambiguous (error=unable to dial n3) (SQLSTATE 40003)',
        '',
      ].join('\n');
      const r = parseCockroachWorkload(text);
      expect(r.error).toMatch(/^Error: ERROR: result is ambiguous/);
      expect(r.incomplete).toBe(true);
      // Cumulative 0, 2, 2, 5 errors: 0, 2, 0 and 3 errors in those seconds (not 2 every second).
      expect(r.samples.map((s) => s.values.errors_per_s)).toEqual([0, 2, 0, 3]);
      expect(r.samples.map((s) => s.values.errors)).toEqual([undefined, undefined, undefined, undefined]);
      expect(r.samples[2].values.lat_p95_ms).toBeUndefined();
      expect(r.samples[3].values.lat_p95_ms).toBe(11.8);
      expectMetrics(r, {
        ops_per_s: 262.5,
        ops: 1050,
        errors: 5,
        errors_per_s: 1.25,
        errors_pct: expect.closeTo((100 * 5) / 1055, 6),
      });
    });

    it('sums the last cumulative rate of every operation when a multi-op run is cut (real: fault-tolerance demo)', () => {
      const r = parseCockroachWorkload(readFixture('real/v19.2-workload-ycsb-fault-tolerance.txt'));
      expect(r.incomplete).toBe(true);
      expectMetrics(r, {
        'read.ops_per_s': 927.2,
        'update.ops_per_s': 48.6,
        ops_per_s: expect.closeTo(975.8, 6),
      });
    });
  });
});
