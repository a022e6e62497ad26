import type { TDirection, TThresholdConfig } from '@clusterscope/schema';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { mean, quantile, sampleStandardDeviation } from 'simple-statistics';

export type TThresholdResult = {
  status: 'ok' | 'crossed' | 'insufficient';
  crossed: boolean;
  reason: string;
  /** Acceptable range; only the worse side (lo for higher-is-better, hi for lower) can be crossed. */
  boundary: { lo: number; hi: number } | null;
  baseline_mean: number | null;
};

function computeBoundary(
  test: TThresholdConfig['test'],
  limit: number,
  xs: number[],
): { lo: number; hi: number } {
  const m = mean(xs);
  const sd = xs.length > 1 ? sampleStandardDeviation(xs) : 0;
  switch (test) {
    case 'percentage':
      return { lo: m - (Math.abs(m) * limit) / 100, hi: m + (Math.abs(m) * limit) / 100 };
    case 'z_score':
      return { lo: m - limit * sd, hi: m + limit * sd };
    case 't_test': {
      // limit < 1: one-sided confidence level; ≥ 1: the critical t itself. Prediction interval for one new value.
      const n = xs.length;
      const t = limit < 1 ? (n > 1 ? tQuantile(limit, n - 1) : Infinity) : limit;
      const half = t * sd * Math.sqrt(1 + 1 / n);
      return { lo: m - half, hi: m + half };
    }
    case 'iqr': {
      const q1 = quantile(xs, 0.25);
      const q3 = quantile(xs, 0.75);
      return { lo: q1 - limit * (q3 - q1), hi: q3 + limit * (q3 - q1) };
    }
  }
}

/**
 * Bencher-style threshold check of a new value against a baseline window.
 * - percentage: worse than the baseline mean by more than `limit` % (limit 10 = 10%);
 * - z_score: |z| > limit on the worse side;
 * - t_test: outside the one-sided t prediction interval; limit is a confidence level (0.99) or a critical t (≥ 1);
 * - iqr: outside [Q1 − limit·IQR, Q3 + limit·IQR].
 * Only the worse side counts; fewer than minSamples baseline values → insufficient.
 */
export function evaluateThreshold(
  config: TThresholdConfig,
  baselineValues: number[],
  value: number,
  direction: TDirection,
): TThresholdResult {
  const xs = baselineValues.filter(Number.isFinite);
  const minSamples = Math.max(
    1,
    config.minSamples ?? 2,
    config.test === 't_test' && config.limit < 1 ? 2 : 1,
  );
  if (!Number.isFinite(config.limit) || config.limit <= 0) {
    throw new RangeError(`threshold limit must be a positive number, got ${config.limit}`);
  }
  if (xs.length < minSamples || !Number.isFinite(value)) {
    return {
      status: 'insufficient',
      crossed: false,
      reason: !Number.isFinite(value)
        ? 'value is not a finite number'
        : `${xs.length} baseline value(s) < minSamples ${minSamples}`,
      boundary: null,
      baseline_mean: xs.length ? mean(xs) : null,
    };
  }
  const boundary = computeBoundary(config.test, config.limit, xs);
  const crossed = direction === 'higher' ? value < boundary.lo : value > boundary.hi;
  const side =
    direction === 'higher'
      ? `lower boundary ${boundary.lo.toPrecision(6)}`
      : `upper boundary ${boundary.hi.toPrecision(6)}`;
  return {
    status: crossed ? 'crossed' : 'ok',
    crossed,
    reason: `${config.test} (limit ${config.limit}): ${Number(value.toPrecision(6))} ${crossed ? 'crosses' : 'is within'} the ${side}`,
    boundary,
    baseline_mean: mean(xs),
  };
}
