import { describe, expect, it } from 'vitest';
import { parseOutput } from '../parsers/parse-output';
import { readFixture } from '../parsers/fixture.test-helper';
import { compareRuns } from './compare-runs';

describe('compareRuns', () => {
  const bank = parseOutput(readFixture('cockroach_workload_bank.txt'));

  it('finds no change between a run and itself', () => {
    const rows = compareRuns(bank, bank);
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.every((r) => r.verdict === 'noise')).toBe(true);
    const ops = rows.find((r) => r.name === 'ops_per_s');
    expect(ops).toMatchObject({ source: 'samples', direction: 'higher', change_pct: 0, n_a: 18 });
  });

  it('flags a 20% slower copy from its interval samples', () => {
    const slower = {
      samples: bank.samples.map((s) => ({
        elapsed_s: s.elapsed_s,
        values: { ...s.values, ops_per_s: s.values.ops_per_s * 0.8, lat_p95_ms: s.values.lat_p95_ms * 1.25 },
      })),
      summary: bank.summary.map((m) =>
        m.name === 'lat_avg_ms' || m.name === 'lat_max_ms' ? { ...m, value: m.value * 1.5 } : m,
      ),
    };
    const rows = compareRuns(bank, slower);
    expect(rows.find((r) => r.name === 'ops_per_s')).toMatchObject({
      source: 'samples',
      verdict: 'regression',
    });
    expect(rows.find((r) => r.name === 'ops_per_s')?.change_pct).toBeCloseTo(-20, 6);
    expect(rows.find((r) => r.name === 'lat_p95_ms')?.verdict).toBe('regression');
    // Summary-only metric: 50% worse crosses the 10% summary threshold.
    expect(rows.find((r) => r.name === 'lat_avg_ms')).toMatchObject({
      source: 'summary',
      verdict: 'regression',
      test: 'none',
    });
    expect(rows.find((r) => r.name === 'lat_max_ms')).toMatchObject({ source: 'samples', verdict: 'noise' });
    expect(rows.find((r) => r.name === 'ops')).toMatchObject({
      source: 'summary',
      verdict: 'noise',
      change_pct: 0,
    });
  });

  it('compares summary-only runs and skips metrics missing from one run', () => {
    const a = parseOutput(readFixture('cockroach_workload_tpcc.txt'));
    const b = parseOutput(readFixture('cockroach_workload_tpcc_short.txt'));
    const rows = compareRuns(a, b);
    expect(rows.map((r) => r.name).sort()).toEqual(
      [
        'efc_pct',
        'newOrder.lat_avg_ms',
        'newOrder.lat_max_ms',
        'newOrder.lat_p50_ms',
        'newOrder.lat_p90_ms',
        'newOrder.lat_p95_ms',
        'newOrder.lat_p99_ms',
        'tpmC',
      ].sort(),
    );
    const tpmc = rows.find((r) => r.name === 'tpmC');
    expect(tpmc).toMatchObject({ source: 'summary', mean_a: 12, mean_b: 153, verdict: 'improvement' });
    expect(rows.find((r) => r.name === 'newOrder.lat_avg_ms')).toMatchObject({ verdict: 'regression' });
    // A single max latency is never judged; an average is.
    const doubled = {
      ...a,
      summary: a.summary.map((m) => (m.name.startsWith('lat_') ? { ...m, value: m.value * 2 } : m)),
    };
    const again = compareRuns(a, doubled);
    expect(again.find((r) => r.name === 'lat_max_ms')).toMatchObject({ verdict: 'noise', change_pct: 100 });
    expect(again.find((r) => r.name === 'lat_max_ms')?.reason).toMatch(/not judged/);
    expect(again.find((r) => r.name === 'lat_p99_ms')).toMatchObject({
      verdict: 'regression',
      change_pct: 100,
    });
  });
});
