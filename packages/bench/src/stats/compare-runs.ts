import type { TDirection, TIntervalSample, TMetric } from '@clusterscope/schema';
import { directionOf, getMetricInfo } from '../metrics';
import {
  type TCompareOptions,
  type TCompareResult,
  type TVerdict,
  compareSamples,
  UNTESTED,
} from './compare-samples';

export type TRunData = { samples: TIntervalSample[]; summary: TMetric[] };

export type TCompareRunsOptions = TCompareOptions & {
  /** Interval samples a run needs per metric to use them (default 5). */
  minSamples?: number;
  /** Leading samples dropped as warm-up: a count, or 'auto' = 10% of the run (default 'auto'). */
  warmup?: number | 'auto';
  /** Summary-only comparison: |% change| at which the verdict is not noise (default 10). */
  summaryThresholdPct?: number;
};

export type TMetricComparison = TCompareResult & {
  name: string;
  unit: string;
  direction: TDirection;
  source: 'samples' | 'summary';
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

/**
 * Compares every metric present in both runs. A metric with ≥ minSamples interval samples in
 * both runs goes through compareSamples (after warm-up trimming). Otherwise, when both summaries
 * have it, the single values are compared: no test or CI, and the verdict is noise unless
 * |change| ≥ summaryThresholdPct (a single value per run carries no variance estimate, so the bar is high);
 * min/max latencies compared this way are always noise.
 */
export function compareRuns(
  runA: TRunData,
  runB: TRunData,
  opts: TCompareRunsOptions = {},
): TMetricComparison[] {
  const minSamples = opts.minSamples ?? 5;
  const warmup = opts.warmup ?? 'auto';
  const threshold = opts.summaryThresholdPct ?? 10;
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
    const sa = inB.has(name) ? seriesOf(runA, name) : [];
    const sb = inB.has(name) ? seriesOf(runB, name) : [];
    if (sa.length >= minSamples && sb.length >= minSamples) {
      const r = compareSamples(
        dropWarmup(sa, warmup, minSamples),
        dropWarmup(sb, warmup, minSamples),
        direction,
        opts,
      );
      out.push({ name, unit, direction, source: 'samples', ...r });
      continue;
    }
    const ma = summaryA.get(name);
    const mb = summaryB.get(name);
    if (!ma || !mb) continue;
    const change = ma.value !== 0 ? ((mb.value - ma.value) / Math.abs(ma.value)) * 100 : null;
    let verdict: TVerdict = 'noise';
    const extreme = EXTREME.test(name);
    if (change !== null && !extreme && Math.abs(change) >= threshold) {
      verdict = (direction === 'higher') === change > 0 ? 'improvement' : 'regression';
    }
    out.push({
      name,
      unit,
      direction,
      source: 'summary',
      n_a: 1,
      n_b: 1,
      mean_a: ma.value,
      mean_b: mb.value,
      change_pct: change,
      ...UNTESTED,
      verdict,
      reason: extreme
        ? 'summary only; a single min/max value is not judged'
        : change === null
          ? 'summary only; baseline is 0'
          : `summary only; |change| ${Math.abs(change).toFixed(2)}% ${verdict === 'noise' ? '<' : '≥'} ${threshold}%`,
    });
  }
  return out;
}
