import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCockroachWorkload } from '@clusterscope/bench';
import type { TMetricVerdict } from '@clusterscope/schema';
import { parseRunIds, poolRunData, toSampleSeries, trimWarmup } from './compare';
import { decideRunVerdict } from './verdict';
import { parseExportFormat, toCsv } from './export';

const v = (verdict: TMetricVerdict['verdict']): TMetricVerdict => ({
  metric: 'tps', unit: 'tx/s', direction: 'higher', baseline: 1, value: 1, change_pct: 0, ci95: null,
  p_value: null, test: 'welch', kind: 'rate', evidence: 'strong', judged: true, verdict, source: 'samples', n_baseline: 3, n_value: 3, reason: '',
}); // prettier-ignore

/** The run verdict of metric verdicts, against a baseline when `hasBaseline`. */
const summarizeVerdicts = (verdicts: TMetricVerdict[], envHealthy: boolean | null, hasBaseline: boolean) => {
  const { verdict, regression } = decideRunVerdict({
    verdicts,
    envHealthy,
    baselineRuns: hasBaseline ? 1 : 0,
  });
  return { verdict, regression };
};

describe('run verdict from metric verdicts', () => {
  it('regression wins over improvement; an unhealthy environment is never a regression', () => {
    expect(summarizeVerdicts([v('improvement'), v('regression')], true, true)).toEqual({
      verdict: 'regression',
      regression: true,
    });
    expect(summarizeVerdicts([v('regression')], false, true)).toEqual({
      verdict: 'unhealthy_env',
      regression: false,
    });
    expect(summarizeVerdicts([], false, false).verdict).toBe('unhealthy_env');
    expect(summarizeVerdicts([], null, false).verdict).toBe('no_baseline');
    expect(summarizeVerdicts([v('noise'), v('improvement')], null, true).verdict).toBe('improvement');
    expect(summarizeVerdicts([v('noise')], null, true).verdict).toBe('noise');
  });
});

describe('baseline pooling', () => {
  const run = (n: number, x: number) => ({
    samples: Array.from({ length: n }, (_, i) => ({ elapsed_s: i + 1, values: { tps: x + i } })),
    summary: [{ name: 'tps', value: x, unit: 'tx/s', direction: 'higher' as const }],
  });
  it('drops 10% warm-up per run, concatenates samples and averages summaries', () => {
    expect(trimWarmup(run(20, 0)).samples[0].values.tps).toBe(2);
    const p = poolRunData([run(10, 100), run(20, 200)]);
    expect(p.samples.length).toBe(9 + 18);
    expect(p.samples[0].values.tps).toBe(101);
    expect(p.summary).toEqual([{ name: 'tps', value: 150, unit: 'tx/s', direction: 'higher' }]);
  });
});

describe('input parsing', () => {
  it('accepts 2–8 distinct run ids', () => {
    expect(parseRunIds(' a, b ,a,')).toEqual(['a', 'b']);
    expect(() => parseRunIds('a')).toThrow(/2 to 8/);
    expect(() => parseRunIds('a,b,c,d,e,f,g,h,i')).toThrow(/got 9/);
  });
  it('names the field of a bad export format and writes RFC 4180 CSV', () => {
    expect(parseExportFormat(undefined)).toBe('csv');
    expect(parseExportFormat('json')).toBe('json');
    expect(() => parseExportFormat('xml')).toThrow(/format: expected csv or json/);
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['x\ny', null],
          [1.5, new Date(0)],
        ],
      ),
    ).toBe('a,b\r\n"x\ny",\r\n1.5,1970-01-01T00:00:00.000Z\r\n');
  });
});

describe('run view series', () => {
  it('a stalled interval has no latency: null in the series (a gap), never 0 ms or a joined line', () => {
    // Real output of cockroachdb/cockroach#47202: ops stop after 1 s, the tool prints 0.0 latencies.
    const out = readFileSync(
      new URL('../../../bench/fixtures/real/issue-47202-workload-kv-stall.txt', import.meta.url),
      'utf8',
    );
    const series = toSampleSeries(parseCockroachWorkload(out).samples);
    const p95 = Object.keys(series).find((k) => /p95/.test(k))!;
    const rate = Object.keys(series).find((k) => /ops_per_s$/.test(k) && !/cum/.test(k))!;
    expect(series[p95][0]).toEqual([1, 14.7]);
    expect(series[p95].slice(1, 5)).toEqual([
      [2, null],
      [3, null],
      [4, null],
      [5, null],
    ]);
    // Every metric has a point per interval, so the rate (0 while stalled) and the latency align.
    expect(series[p95]).toHaveLength(series[rate].length);
    expect(series[rate][1]).toEqual([2, 0]);
    const latencies = Object.keys(series).filter((k) => /p\d+|pMax|max/i.test(k));
    expect(latencies.flatMap((k) => series[k].filter(([, v]) => v === 0))).toEqual([]);
  });

  it('samples without gaps have no nulls; a metric missing from early samples starts with nulls', () => {
    const s = toSampleSeries([
      { elapsed_s: 1, values: { tps: 10 } },
      { elapsed_s: 2, values: { tps: 12, lat_avg_ms: 3 } },
    ]);
    expect(s).toEqual({ tps: [[1, 10], [2, 12]], lat_avg_ms: [[1, null], [2, 3]] }); // prettier-ignore
  });
});
