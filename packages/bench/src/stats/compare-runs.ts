import {
  ALPHA,
  getEvidence,
  HISTORY_MIN_RUNS,
  type TDirection,
  type TEvidence,
  type TIntervalSample,
  type TMetric,
  type TMetricKind,
} from '@clusterscope/schema';
import { mean } from 'simple-statistics';
import { directionOf, getMetricInfo, getMetricKind, selectVerdictMetric } from '../metrics';
import {
  type TCompareOptions,
  type TCompareResult,
  type TVerdict,
  compareSamples,
  decideChange,
  UNTESTED,
} from './compare-samples';
import { getHistoryChangeTest } from './tests';

export type TRunData = { samples: TIntervalSample[]; summary: TMetric[] };

export type TCompareRunsOptions = TCompareOptions & {
  /** Interval samples a run needs per metric to use them (default 5). */
  minSamples?: number;
  /** Leading samples dropped as warm-up: a count, or 'auto' = 10% of the run (default 'auto'). */
  warmup?: number | 'auto';
  /** Metric names and kinds that can make a verdict (empty: rates, latencies and error rates). */
  verdictMetrics?: readonly string[] | null;
  /** Each metric's stored values in the baseline's runs (one per run), for the history test. */
  history?: Readonly<Record<string, readonly number[]>>;
  /** Baseline runs the history test needs (default HISTORY_MIN_RUNS). */
  historyMinRuns?: number;
};

export type TMetricComparison = TCompareResult & {
  name: string;
  unit: string;
  direction: TDirection;
  kind: TMetricKind;
  source: 'samples' | 'summary';
  evidence: TEvidence;
  /** Counts for the run verdict (see compareRuns). */
  judged: boolean;
};

/** Single min/max values swing too much between runs to judge without samples. */
const EXTREME = /(^|[._])(lat_max_ms|lat_min_ms)$|_lat_max_ms$/;

function seriesOf(run: TRunData, name: string): number[] {
  return run.samples
    .map((s) => s.values[name])
    .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
}

function dropWarmup(xs: number[], warmup: number | 'auto', minSamples: number): number[] {
  const n = warmup === 'auto' ? Math.floor(xs.length / 10) : Math.max(0, Math.floor(warmup));
  return xs.length - n >= minSamples ? xs.slice(n) : xs;
}

const changeOf = (a: number, b: number) => (a !== 0 ? ((b - a) / Math.abs(a)) * 100 : null);

/**
 * A change the samples' test calls real against a baseline of several runs must also lie outside the spread
 * of those runs' values (the history test): identical runs on a shared machine differ from run to run by
 * more than their interval samples show, and the pooled samples' test cannot see that spread. When the
 * run's value is inside it, the history test is the one that judged the metric (its p and CI), and it is noise.
 */
function checkRunSpread(
  r: TCompareResult,
  runs: number[],
  value: number,
  opts: TCompareRunsOptions,
): Partial<TCompareResult> {
  const alpha = opts.alpha ?? ALPHA;
  const t = getHistoryChangeTest(runs, value, alpha);
  if (t.p < alpha) return {};
  return {
    test: 'history',
    p_value: t.p,
    ci95: t.ci,
    verdict: 'noise',
    reason: `${r.test} on the samples: ${r.reason}; but inside the spread of the baseline's ${runs.length} runs (history p=${t.p.toPrecision(3)} ≥ ${alpha})`,
  };
}

/**
 * Compares every metric present in both runs.
 * - With ≥ minSamples interval samples in both runs: one test on them (compareSamples, after warm-up).
 * - With one value per run: the history test of run B's value against `history` (the baseline runs'
 *   values) when it has ≥ historyMinRuns values; otherwise indicative (|change| ≥ minEffectPct, untested).
 * The values and change shown are the runs' stored summary values when both have one (the test still
 * runs on the samples), so a verdict shows the numbers the run pages show.
 * `judged`: the metric is a verdict metric (verdictMetrics, default by kind) and was tested, or it is
 * indicative and named explicitly. `evidence` is from the test's p, or indicative / not_judged.
 */
export function compareRuns(
  runA: TRunData,
  runB: TRunData,
  opts: TCompareRunsOptions = {},
): TMetricComparison[] {
  const minSamples = opts.minSamples ?? 5;
  const warmup = opts.warmup ?? 'auto';
  const historyMin = opts.historyMinRuns ?? HISTORY_MIN_RUNS;
  const summaryA = new Map(runA.summary.map((m) => [m.name, m]));
  const summaryB = new Map(runB.summary.map((m) => [m.name, m]));
  const sampleNames = (run: TRunData) => new Set(run.samples.flatMap((s) => Object.keys(s.values)));
  const inB = sampleNames(runB);
  const names = [...new Set([...summaryA.keys(), ...sampleNames(runA)])];
  const out: TMetricComparison[] = [];
  for (const name of names) {
    const meta = summaryA.get(name) ?? summaryB.get(name);
    const direction = meta?.direction ?? directionOf(name);
    const unit = meta?.unit ?? getMetricInfo(name)?.unit ?? '';
    const kind = getMetricKind(name);
    const { selected, explicit } = selectVerdictMetric(name, opts.verdictMetrics);
    const ma = summaryA.get(name);
    const mb = summaryB.get(name);
    const finish = (r: TCompareResult, source: 'samples' | 'summary', tested: boolean) => {
      const evidence: TEvidence = !selected ? 'not_judged' : tested ? getEvidence(r.p_value) : 'indicative';
      out.push({
        name,
        unit,
        direction,
        kind,
        source,
        ...r,
        evidence,
        judged: selected && (tested || explicit),
      });
    };
    const sa = inB.has(name) ? seriesOf(runA, name) : [];
    const sb = inB.has(name) ? seriesOf(runB, name) : [];
    if (sa.length >= minSamples && sb.length >= minSamples) {
      const r = compareSamples(
        dropWarmup(sa, warmup, minSamples),
        dropWarmup(sb, warmup, minSamples),
        direction,
        opts,
      );
      if (ma && mb) {
        // The stored values are what every page shows; the samples' test decides whether the change is real.
        const change_pct = changeOf(ma.value, mb.value);
        const d = decideChange({ ...r, change_pct, diff: mb.value - ma.value }, direction, opts);
        Object.assign(r, { mean_a: ma.value, mean_b: mb.value, change_pct, ...d });
        const runs = (opts.history?.[name] ?? []).filter(Number.isFinite);
        if (r.verdict !== 'noise' && runs.length >= 2)
          Object.assign(r, checkRunSpread(r, runs, mb.value, opts));
      }
      finish(r, 'samples', r.test !== 'none');
      continue;
    }
    if (!ma || !mb) continue;
    const change_pct = changeOf(ma.value, mb.value);
    const base = { n_a: 1, n_b: 1, mean_a: ma.value, mean_b: mb.value, change_pct };
    const past = (opts.history?.[name] ?? []).filter(Number.isFinite);
    if (EXTREME.test(name)) {
      const r = {
        ...base,
        ...UNTESTED,
        verdict: 'noise' as TVerdict,
        reason: 'one value per run; a single min/max value is not judged',
      };
      out.push({
        name,
        unit,
        direction,
        kind,
        source: 'summary',
        ...r,
        evidence: selected ? 'indicative' : 'not_judged',
        judged: false,
      });
      continue;
    }
    if (past.length >= historyMin) {
      const t = getHistoryChangeTest(past, mb.value, opts.alpha);
      const m = mean(past);
      const hChange = changeOf(m, mb.value);
      const d = decideChange(
        { change_pct: hChange, p_value: t.p, ci95: t.ci, test: 'history', diff: mb.value - m },
        direction,
        opts,
      );
      finish(
        {
          ...base,
          n_a: past.length,
          mean_a: m,
          change_pct: hChange,
          ...UNTESTED,
          ci95: t.ci,
          p_value: t.p,
          test: 'history',
          ...d,
          reason: `history of ${past.length} runs: ${d.reason}`,
        },
        'summary',
        true,
      );
      continue;
    }
    const minEffect = opts.minEffectPct ?? 9;
    let verdict: TVerdict = 'noise';
    if (change_pct !== null && Math.abs(change_pct) >= minEffect)
      verdict = (direction === 'higher') === change_pct > 0 ? 'improvement' : 'regression';
    const why =
      change_pct === null
        ? 'baseline is 0'
        : `|change| ${Math.abs(change_pct).toFixed(2)}% ${verdict === 'noise' ? '<' : '≥'} ${minEffect}%`;
    finish(
      {
        ...base,
        ...UNTESTED,
        verdict,
        reason: `one value per run and ${past.length} baseline run(s) < ${historyMin}: untested; ${why}`,
      },
      'summary',
      false,
    );
  }
  return out;
}
