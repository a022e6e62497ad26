import { compareRuns, type TRunData } from '@clusterscope/bench';
import { describe, expect, it } from 'vitest';
import { getRunDuration, getRunValues, poolRunData, toMetricVerdict } from './compare';
import { decideRunVerdict, findMismatch, formatAlertText, nameBaseline, parseBranchRef } from './verdict';
import { VERDICT_RULE } from '@clusterscope/schema';

const mv = (metric: string, verdict: 'regression' | 'improvement' | 'noise', change_pct: number | null) => ({
  metric,
  verdict,
  change_pct,
});

describe('nameBaseline / parseBranchRef', () => {
  it('names the baseline the same way everywhere', () => {
    expect(nameBaseline({ kind: 'branch', branch: 'main', window: 3 }, 3)).toBe('main (last 3 runs)');
    expect(nameBaseline({ kind: 'branch', branch: 'main', window: 5 }, 2)).toBe('main (last 2 runs)');
    expect(nameBaseline({ kind: 'branch', branch: 'main', window: 5 }, 1)).toBe('main (last run)');
    expect(nameBaseline({ kind: 'branch', branch: 'main', window: 5 }, 0)).toBe('main (no earlier runs)');
    expect(nameBaseline({ kind: 'run', runId: 'cmabcdef0123456789' })).toBe('run 23456789');
  });
  it('reads branch:N windows', () => {
    expect(parseBranchRef('main:5')).toEqual({ branch: 'main', window: 5 });
    expect(parseBranchRef('release/1.2')).toEqual({ branch: 'release/1.2', window: null });
    expect(parseBranchRef('main:0')).toEqual({ branch: 'main:0', window: null });
  });
});

describe('decideRunVerdict', () => {
  it('is a regression when any metric regressed, naming it with its change', () => {
    expect(
      decideRunVerdict({
        verdicts: [mv('tps', 'regression', -12.34), mv('lat_p95_ms', 'improvement', -10)],
        envHealthy: true,
        baselineRuns: 3,
      }),
    ).toEqual({ verdict: 'regression', regression: true, reason: 'regressed: tps -12.3%' });
  });
  it('orders its reasons: mismatch, unhealthy env, no baseline, then the numbers', () => {
    const reg = [mv('tps', 'regression', -20)];
    expect(
      decideRunVerdict({
        verdicts: reg,
        envHealthy: false,
        baselineRuns: 3,
        mismatch: 'different tools (fio vs wrk)',
      }),
    ).toMatchObject({
      verdict: 'incomparable',
      regression: false,
      reason: 'not comparable: different tools (fio vs wrk)',
    });
    expect(decideRunVerdict({ verdicts: reg, envHealthy: false, baselineRuns: 3 })).toMatchObject({
      verdict: 'unhealthy_env',
      regression: false,
    });
    expect(decideRunVerdict({ verdicts: [], envHealthy: null, baselineRuns: 0 }).verdict).toBe('no_baseline');
    expect(
      decideRunVerdict({ verdicts: [mv('tps', 'improvement', 11)], envHealthy: null, baselineRuns: 1 }),
    ).toEqual({
      verdict: 'improvement',
      regression: false,
      reason: 'improved: tps +11.0%',
    });
    expect(
      decideRunVerdict({ verdicts: [mv('tps', 'noise', -8)], envHealthy: true, baselineRuns: 1 }).verdict,
    ).toBe('noise');
  });
  it('has one rule text that states the thresholds', () => {
    expect(VERDICT_RULE).toMatch(/p < 0.05/);
    expect(VERDICT_RULE).toMatch(/at least 9%/);
  });
});

describe('findMismatch', () => {
  const run = { tool: 'sysbench', toolWorkload: 'oltp_read_write', workloadId: 'w1' };
  it('refuses to judge runs of different tools or workloads', () => {
    expect(findMismatch(run, [{ ...run }])).toBeNull();
    expect(findMismatch(run, [{ ...run, tool: 'fio' }])).toBe('different tools (fio vs sysbench)');
    expect(findMismatch(run, [{ ...run, workloadId: 'w2' }])).toBe('different workloads');
    expect(findMismatch(run, [{ ...run, workloadId: null, toolWorkload: 'oltp_read_only' }])).toBe(
      'different tool workloads (oltp_read_only vs oltp_read_write)',
    );
  });
});

describe('formatAlertText', () => {
  it('reads like a sentence with the baseline window and limit', () => {
    // (1249.28 − 1329.05) / 1329.05 = −6.002 % → "6.0 % below".
    expect(
      formatAlertText({
        metric: 'tps',
        unit: 'tx/s',
        value: 1249.28,
        baseline: 1329.05,
        branch: 'main',
        runs: 5,
        test: 'percentage',
        limit: 10,
      }),
    ).toBe('tps 1,249 tx/s is 6.0 % below the baseline 1,329 tx/s (main, last 5 runs; limit 10 %)');
    expect(
      formatAlertText({
        metric: 'lat_p95_ms',
        unit: 'ms',
        value: 12.5,
        baseline: 10,
        branch: 'main',
        runs: 1,
        test: 'z_score',
        limit: 3,
      }),
    ).toBe('lat_p95_ms 12.5 ms is 25.0 % above the baseline 10.0 ms (main, last run; limit 3 σ)');
  });
});

describe('run values and pooled baseline agree', () => {
  // Two baseline runs of 10 samples each (warm-up: first sample dropped) and a run.
  const run = (level: number): TRunData => ({
    samples: Array.from({ length: 10 }, (_, i) => ({
      elapsed_s: i + 1,
      values: { tps: i === 0 ? 0 : level + (i % 2) },
    })),
    summary: [{ name: 'tps', value: level * 2, unit: 'tx/s', direction: 'higher' }],
  });
  it('uses the stored summary value; the sample mean only for a metric without one', () => {
    expect(getRunValues(run(100)).get('tps')!.value).toBe(200);
    const noSummary: TRunData = { ...run(100), summary: [] };
    // samples 2..10 alternate level+1, level, …: mean of 9 = level + 5/9 (i = 1,3,5,7,9 are odd).
    expect(getRunValues(noSummary).get('tps')!.value).toBeCloseTo(100 + 5 / 9, 10);
    const few: TRunData = { samples: [{ elapsed_s: 1, values: { tps: 3 } }], summary: [] };
    expect(getRunValues(few).get('tps')!.value).toBe(3);
  });
  it('gives the threshold window mean the same baseline value the verdict shows', () => {
    const base = [run(100), run(110)];
    const pooled = poolRunData(base);
    const v = compareRuns(pooled, { ...run(90), samples: run(90).samples.slice(1) }, { warmup: 0 }).map(
      toMetricVerdict,
    );
    const tps = v.find((x) => x.metric === 'tps')!;
    const windowMean =
      (getRunValues(base[0]).get('tps')!.value + getRunValues(base[1]).get('tps')!.value) / 2;
    expect(tps.baseline).toBeCloseTo(windowMean, 10);
    expect(tps.baseline).toBe(210);
    expect(tps.value).toBe(180);
  });
});

describe('getRunDuration', () => {
  const t0 = new Date('2026-11-23T10:00:00Z');
  const at = (s: number) => new Date(t0.getTime() + s * 1000);
  const data = (summary: [string, number][], ticks: number[] = []): TRunData => ({
    samples: ticks.map((elapsed_s) => ({ elapsed_s, values: { tps: 1 } })),
    summary: summary.map(([name, value]) => ({ name, value, unit: '', direction: 'higher' as const })),
  });
  it('uses the wall clock when the run took at least a second', () => {
    expect(getRunDuration({ startedAt: t0, finishedAt: at(90) }, data([['duration_s', 10]]))).toEqual({
      seconds: 90,
      source: 'clock',
    });
  });
  it('reads a submitted run (finished at once) from its output', () => {
    const done = { startedAt: t0, finishedAt: t0 };
    expect(getRunDuration(done, data([['duration_s', 60]]))).toEqual({ seconds: 60, source: 'output' });
    expect(getRunDuration(done, data([], [10, 20, 30]))).toEqual({ seconds: 30, source: 'output' });
    // 12,000 ops at 400 ops/s = 30 s.
    expect(
      getRunDuration(
        done,
        data([
          ['ops', 12_000],
          ['ops_per_s', 400],
        ]),
      ),
    ).toEqual({ seconds: 30, source: 'output' });
    expect(getRunDuration(done, data([]))).toEqual({ seconds: 0, source: 'clock' });
    expect(getRunDuration({ startedAt: t0, finishedAt: null }, data([]))).toBeNull();
  });
});
