import type { TDirection, TThresholdConfig } from '@clusterscope/schema';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { mean, sampleStandardDeviation } from 'simple-statistics';
import { evaluateThreshold } from './threshold';

export type TNoise = {
  runs: number;
  /** sd ÷ |mean| of the runs' values, in %. */
  cvPct: number;
  /** Smallest change (in %) a new run must show to be judged a regression. */
  detectablePct: number;
  basis: string;
};

/**
 * A metric's run-to-run noise over baseline runs' values and the smallest change a verdict detects: a
 * threshold's boundary when the metric has one; otherwise the history test's two-sided t prediction
 * interval at `alpha`, never below the verdicts' minimum effect. null with fewer than 3 runs or a zero
 * mean (no spread to speak of).
 */
export function describeNoise(
  values: readonly number[],
  opts: { alpha: number; minEffectPct: number; direction: TDirection; threshold?: TThresholdConfig | null },
): TNoise | null {
  const xs = values.filter(Number.isFinite);
  if (xs.length < 3) return null;
  const m = mean(xs);
  if (m === 0) return null;
  const sd = sampleStandardDeviation(xs);
  const cvPct = (sd / Math.abs(m)) * 100;
  const n = xs.length;
  if (opts.threshold) {
    const r = evaluateThreshold(opts.threshold, xs, m, opts.direction);
    if (r.boundary) {
      const bound = opts.direction === 'higher' ? r.boundary.lo : r.boundary.hi;
      const detectablePct = (Math.abs(bound - m) / Math.abs(m)) * 100;
      return {
        runs: n,
        cvPct,
        detectablePct,
        basis: `the ${opts.threshold.test} threshold (limit ${opts.threshold.limit}) over ${n} runs`,
      };
    }
  }
  const t = tQuantile(1 - opts.alpha / 2, n - 1);
  const spread = cvPct * t * Math.sqrt(1 + 1 / n);
  const floor = spread <= opts.minEffectPct;
  return {
    runs: n,
    cvPct,
    detectablePct: Math.max(opts.minEffectPct, spread),
    basis: floor
      ? `the verdicts' minimum effect of ${Number(opts.minEffectPct.toFixed(1))}% (run-to-run spread ${spread.toFixed(1)}% at ${Math.round((1 - opts.alpha) * 100)}% is below it)`
      : `run-to-run spread over ${n} runs at ${Math.round((1 - opts.alpha) * 100)}% confidence (t prediction interval)`,
  };
}
