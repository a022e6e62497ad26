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
        m.name === 'lat_avg_ms' || m.name === 'lat_max_ms'
          ? { ...m, value: m.value * 1.5 }
          : m.name === 'ops_per_s'
            ? { ...m, value: m.value * 0.8 }
            : m.name === 'lat_p95_ms'
              ? { ...m, value: m.value * 1.25 }
              : m,
      ),
    };
    const rows = compareRuns(bank, slower);
    expect(rows.find((r) => r.name === 'ops_per_s')).toMatchObject({
      source: 'samples',
      verdict: 'regression',
    });
    expect(rows.find((r) => r.name === 'ops_per_s')?.change_pct).toBeCloseTo(-20, 6);
    expect(rows.find((r) => r.name === 'lat_p95_ms')?.verdict).toBe('regression');
    // One value per run and no history: 50% worse is an indicative regression that cannot fail the run.
    expect(rows.find((r) => r.name === 'lat_avg_ms')).toMatchObject({
      source: 'summary',
      verdict: 'regression',
      test: 'none',
      evidence: 'indicative',
      judged: false,
    });
    expect(rows.find((r) => r.name === 'ops_per_s')).toMatchObject({ judged: true, kind: 'rate' });
    expect(rows.find((r) => r.name === 'lat_max_ms')).toMatchObject({ source: 'samples', verdict: 'noise' });
    expect(rows.find((r) => r.name === 'ops')).toMatchObject({
      source: 'summary',
      verdict: 'noise',
      change_pct: 0,
      kind: 'count',
      evidence: 'not_judged',
      judged: false,
    });
  });

  it("calls a sampled change against several baseline runs only outside those runs' spread", () => {
    // Interval samples of a steady rate: within-run noise ±1%.
    const steady = (level: number, seed: number) => ({
      samples: Array.from({ length: 30 }, (_, i) => ({
        elapsed_s: i + 1,
        values: { tps: level * (1 + 0.01 * Math.sin(i * 1.7 + seed)) },
      })),
      summary: [{ name: 'tps', value: level, unit: 'tx/s', direction: 'higher' as const }],
    });
    const pooled = (levels: number[]) => {
      const runs = levels.map((l, i) => steady(l, i));
      const m = levels.reduce((x, y) => x + y, 0) / levels.length;
      return {
        samples: runs.flatMap((r) => r.samples),
        summary: [{ name: 'tps', value: m, unit: 'tx/s', direction: 'higher' as const }],
      };
    };
    // Identical code on a busy machine: the baseline's own runs differ by up to 50%.
    const busy = [1000, 1500, 700];
    const inside = compareRuns(pooled(busy), steady(750, 9), { history: { tps: busy } })[0];
    expect(inside).toMatchObject({ test: 'history', verdict: 'noise', judged: true, source: 'samples' });
    expect(inside.p_value).toBeGreaterThanOrEqual(0.05);
    expect(inside.reason).toMatch(/inside the spread of the baseline's 3 runs/);
    // The same 35% drop against runs that agree with each other is a regression by the samples' test.
    const calm = [1000, 1010, 990];
    const outside = compareRuns(pooled(calm), steady(650, 9), { history: { tps: calm } })[0];
    expect(outside).toMatchObject({ verdict: 'regression', judged: true, source: 'samples' });
    expect(['welch', 'bootstrap']).toContain(outside.test);
    // One baseline run has no spread to judge by: the samples' test alone decides.
    const single = compareRuns(steady(1000, 0), steady(750, 9), { history: { tps: [1000] } })[0];
    expect(single.verdict).toBe('regression');
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

  const one = (value: number, name = 'tps', extra: Record<string, number> = {}) => ({
    samples: [],
    summary: [
      { name, value, unit: 'tx/s', direction: 'higher' as const },
      ...Object.entries(extra).map(([n, v]) => ({
        name: n,
        value: v,
        unit: 'ms',
        direction: 'lower' as const,
      })),
    ],
  });

  it('judges counts, set-up times and durations only when asked', () => {
    const a = one(100, 'transactions', { conn_time_ms: 10 });
    const b = one(80, 'transactions', { conn_time_ms: 20 });
    const byDefault = compareRuns(a, b, { history: { transactions: [100, 101, 99, 100, 100] } });
    const tx = byDefault.find((r) => r.name === 'transactions')!;
    // The history test says transactions fell, but a count is shown, not judged.
    expect(tx).toMatchObject({ kind: 'count', evidence: 'not_judged', judged: false, test: 'history' });
    expect(byDefault.find((r) => r.name === 'conn_time_ms')).toMatchObject({ kind: 'setup', judged: false });
    const asked = compareRuns(a, b, {
      verdictMetrics: ['count'],
      history: { transactions: [100, 101, 99, 100, 100] },
    });
    expect(asked.find((r) => r.name === 'transactions')).toMatchObject({
      verdict: 'regression',
      judged: true,
    });
    // Named explicitly, an indicative (untested) metric counts: the workload asked for it.
    const named = compareRuns(a, b, { verdictMetrics: ['conn_time_ms'] });
    expect(named.find((r) => r.name === 'conn_time_ms')).toMatchObject({
      evidence: 'indicative',
      verdict: 'regression',
      judged: true,
    });
    expect(named.find((r) => r.name === 'transactions')).toMatchObject({ judged: false });
  });

  it('judges a one-value metric against the history of the baseline runs, from 5 runs', () => {
    const history = [1000, 1010, 990, 1005, 995];
    // 4 runs: indicative, even for a 20% drop.
    const few = compareRuns(one(1000), one(800), { history: { tps: history.slice(0, 4) } });
    expect(few[0]).toMatchObject({
      test: 'none',
      evidence: 'indicative',
      judged: false,
      verdict: 'regression',
    });
    // 5 runs with ~0.8% spread: a 20% drop is far outside the prediction interval.
    const drop = compareRuns(one(1000), one(800), { history: { tps: history } })[0];
    expect(drop).toMatchObject({ test: 'history', evidence: 'strong', judged: true, verdict: 'regression' });
    expect(drop.n_a).toBe(5);
    expect(drop.ci95![1]).toBeLessThan(0);
    // The same history with a value inside its spread: no evidence.
    const same = compareRuns(one(1000), one(1003), { history: { tps: history } })[0];
    expect(same).toMatchObject({ test: 'history', evidence: 'none', verdict: 'noise', judged: true });
    expect(same.p_value!).toBeGreaterThan(0.5);
    // A noisy history (±15%) does not call a 10% drop.
    const noisy = [1000, 1150, 850, 1100, 900, 1050];
    expect(compareRuns(one(1000), one(900), { history: { tps: noisy } })[0].verdict).toBe('noise');
  });

  it('shows the stored values and their change while the samples decide', () => {
    const run = (level: number, stored: number) => ({
      samples: Array.from({ length: 20 }, (_, i) => ({ elapsed_s: i + 1, values: { tps: level + (i % 3) } })),
      summary: [{ name: 'tps', value: stored, unit: 'tx/s', direction: 'higher' as const }],
    });
    const r = compareRuns(run(100, 99), run(80, 79))[0];
    expect(r).toMatchObject({ mean_a: 99, mean_b: 79, test: 'welch', verdict: 'regression', judged: true });
    expect(r.change_pct).toBeCloseTo(-20.2, 1);
  });
});
