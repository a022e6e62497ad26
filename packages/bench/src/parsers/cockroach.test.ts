import { describe, expect, it } from 'vitest';
import { parseCockroachWorkload } from './cockroach';
import { metricOf, readFixture } from './fixture.test-helper';

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
        errors: 0,
        lat_p50_ms: 3,
        lat_p95_ms: 15.2,
        lat_p99_ms: 50.3,
        lat_max_ms: 234.9,
      },
    });
    expect(metricOf(r, 'ops_per_s')).toBe(3442.5);
    expect(metricOf(r, 'ops')).toBe(206551);
    expect(metricOf(r, 'lat_avg_ms')).toBe(4.6);
    expect(metricOf(r, 'lat_p99_ms')).toBe(19.9);
    expect(metricOf(r, 'lat_max_ms')).toBe(469.8);
    expect(r.summary.some((m) => m.name.startsWith('transfer.'))).toBe(false);
  });

  it('reads ycsb per-operation lines and totals', () => {
    const r = parseCockroachWorkload(readFixture('cockroach_workload_ycsb.txt'));
    expect(r.workload).toBe('ycsb');
    expect(r.samples).toHaveLength(10);
    expect(r.samples[0].values['read.ops_per_s']).toBe(11011.5);
    expect(r.samples[0].values['update.lat_p99_ms']).toBe(7.3);
    expect(r.samples[0].values.ops_per_s).toBeCloseTo(11011.5 + 581.7, 6);
    expect(metricOf(r, 'read.ops')).toBe(8576709);
    expect(metricOf(r, 'update.ops_per_s')).toBe(751.7);
    expect(metricOf(r, 'update.lat_p99_ms')).toBe(6.6);
    expect(metricOf(r, 'ops_per_s')).toBe(15046.2);
    expect(metricOf(r, 'ops')).toBe(9027735);
    expect(r.summary.find((m) => m.name === 'read.lat_max_ms')?.direction).toBe('lower');
  });

  it('reads tpcc totals, tpmC, efc and audit checks', () => {
    const r = parseCockroachWorkload(readFixture('cockroach_workload_tpcc.txt'));
    expect(r.workload).toBe('tpcc');
    expect(r.incomplete).toBe(false);
    expect(metricOf(r, 'tpmC')).toBe(12);
    expect(metricOf(r, 'efc_pct')).toBe(93.3);
    expect(metricOf(r, 'newOrder.ops')).toBe(120);
    expect(metricOf(r, 'newOrder.lat_p90_ms')).toBe(23.1);
    expect(metricOf(r, 'delivery.lat_avg_ms')).toBe(32.6);
    expect(metricOf(r, 'ops')).toBe(289);
    expect(metricOf(r, 'audit_failures')).toBe(0);
    expect(r.summary.find((m) => m.name === 'tpmC')).toMatchObject({ unit: 'tx/min', direction: 'higher' });
  });

  it('reads the short tpcc output with only the tpmC line', () => {
    const r = parseCockroachWorkload(readFixture('cockroach_workload_tpcc_short.txt'));
    expect(r.workload).toBe('tpcc');
    expect(metricOf(r, 'tpmC')).toBe(153);
    expect(metricOf(r, 'efc_pct')).toBe(119);
    expect(metricOf(r, 'newOrder.lat_p95_ms')).toBe(48.2);
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
    expect(r.summary).toEqual([]);
  });
});
