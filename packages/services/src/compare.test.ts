import { describe, expect, it } from 'vitest';
import type { TMetricVerdict } from '@clusterscope/schema';
import { parseRunIds, poolRunData, trimWarmup } from './compare';
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
