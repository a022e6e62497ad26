import type { TDirection } from '@clusterscope/schema';
import { mean, sampleKurtosis, sampleSkewness } from 'simple-statistics';
import { getBootstrapChangeTest } from './bootstrap';
import { chooseBlockSize, getBlockMeans } from './describe';
import { createRng } from './prng';
import { getMannWhitneyPValue, getWelchChangeTest } from './tests';

export type TVerdict = 'improvement' | 'regression' | 'noise';
export type TTestName = 'welch' | 'bootstrap' | 'history' | 'none';

export type TCompareOptions = {
  /** Significance level of the test (default 0.05). */
  alpha?: number;
  /** Smallest |% change| that can be a regression or improvement (default 9). */
  minEffectPct?: number;
  /** Bootstrap resamples for the CI (default 2000). */
  resamples?: number;
  /** PRNG seed of the bootstrap (default 1). */
  seed?: number;
  /** Block length for autocorrelated samples; default from the lag-1 autocorrelation. */
  blockSize?: number;
};

export type TCompareResult = {
  n_a: number;
  n_b: number;
  mean_a: number;
  mean_b: number;
  /** (mean_b − mean_a) / |mean_a| · 100; null when mean_a is 0. */
  change_pct: number | null;
  /** 95% CI of change_pct from `test`: Welch t-interval, or bootstrap percentile interval. */
  ci95: [number, number] | null;
  /** p-value of the same `test`: p < alpha exactly when ci95 excludes 0. */
  p_value: number | null;
  test: TTestName;
  p_welch: number | null;
  p_mann_whitney: number | null;
  /** Samples averaged per block before testing (1 = none). */
  block_size: number;
  verdict: TVerdict;
  reason: string;
};

/**
 * minEffectPct 9: identical runs on a loaded machine drift apart by more than their intervals show (run-to-run
 * drift no within-run test can see: `npm run bench:verdicts`), so smaller shifts are reported as noise; 9 still
 * detects 15% slowdowns in noisy autocorrelated samples (the unit test's bound).
 */
const DEFAULTS = { alpha: 0.05, minEffectPct: 9, resamples: 2000, seed: 1 };

function isRoughlyNormal(xs: number[]): boolean {
  if (xs.length < 8) return true; // too few to judge; Welch is the more powerful choice here.
  return Math.abs(sampleSkewness(xs)) <= 1 && Math.abs(sampleKurtosis(xs)) <= 3;
}

function directionalVerdict(change: number, direction: TDirection): TVerdict {
  const better = direction === 'higher' ? change > 0 : change < 0;
  return better ? 'improvement' : 'regression';
}

/** The statistics fields of a comparison that ran no test (too few samples, or summary values only). */
export const UNTESTED = {
  ci95: null,
  p_value: null,
  test: 'none',
  p_welch: null,
  p_mann_whitney: null,
  block_size: 1,
} as const satisfies Partial<TCompareResult>;

/**
 * The verdict of a tested change: regression or improvement only when p < alpha (the CI excludes 0) and
 * |change| ≥ minEffectPct; with a baseline of 0 (no relative change) on the test alone. `diff` is b − a.
 */
export function decideChange(
  t: {
    change_pct: number | null;
    p_value: number | null;
    ci95: [number, number] | null;
    test: TTestName;
    diff: number;
  },
  direction: TDirection,
  opts: Pick<TCompareOptions, 'alpha' | 'minEffectPct'> = {},
): { verdict: TVerdict; reason: string } {
  const alpha = opts.alpha ?? DEFAULTS.alpha;
  const minEffectPct = opts.minEffectPct ?? DEFAULTS.minEffectPct;
  const { change_pct, p_value, ci95, test } = t;
  const significant = p_value !== null && p_value < alpha;
  const ciText = ci95 ? `95% CI [${ci95[0].toFixed(2)}, ${ci95[1].toFixed(2)}]%` : 'no CI';
  if (change_pct === null) {
    return significant
      ? {
          verdict: directionalVerdict(t.diff, direction),
          reason: `baseline is 0 and p=${p_value?.toPrecision(3)} < ${alpha}`,
        }
      : { verdict: 'noise', reason: 'baseline is 0 and the difference is not significant' };
  }
  if (!significant)
    return { verdict: 'noise', reason: `p=${p_value?.toPrecision(3)} ≥ ${alpha}: ${ciText} includes 0` };
  if (Math.abs(change_pct) < minEffectPct)
    return {
      verdict: 'noise',
      reason: `|change| ${Math.abs(change_pct).toFixed(2)}% < ${minEffectPct}% minimum effect`,
    };
  return {
    verdict: directionalVerdict(change_pct, direction),
    reason: `${change_pct.toFixed(2)}% (p=${p_value?.toPrecision(3)}, ${test}, ${ciText} excludes 0)`,
  };
}

/**
 * Compares interval samples of run A (baseline) and run B for one metric.
 *
 * Interval samples are autocorrelated, so the test runs on block means (block length from the lag-1
 * autocorrelation). One test gives both the 95% CI of the % change and the p-value, so they cannot
 * disagree: Welch's t (t-interval of the difference of block means, over the baseline mean), or, when
 * the block means look non-normal (|skew| > 1 or |excess kurtosis| > 3, judged from 8 blocks up), a
 * moving-block bootstrap (percentile CI and bootstrap p). Verdict: regression or improvement only when
 * p < alpha (the CI excludes 0) and |change| ≥ minEffectPct; otherwise noise.
 */
export function compareSamples(
  a: number[],
  b: number[],
  direction: TDirection,
  opts: TCompareOptions = {},
): TCompareResult {
  const o = { ...DEFAULTS, ...opts };
  const xa = a.filter(Number.isFinite);
  const xb = b.filter(Number.isFinite);
  const mean_a = xa.length ? mean(xa) : NaN;
  const mean_b = xb.length ? mean(xb) : NaN;
  const base = {
    n_a: xa.length,
    n_b: xb.length,
    mean_a: Number.isFinite(mean_a) ? mean_a : 0,
    mean_b: Number.isFinite(mean_b) ? mean_b : 0,
  };
  const change_pct =
    mean_a !== 0 && Number.isFinite(mean_a) && Number.isFinite(mean_b)
      ? ((mean_b - mean_a) / Math.abs(mean_a)) * 100
      : null;
  if (xa.length < 3 || xb.length < 3) {
    return {
      ...base,
      change_pct,
      ...UNTESTED,
      verdict: 'noise',
      reason: 'fewer than 3 samples in a run',
    };
  }
  const block = Math.max(1, Math.floor(opts.blockSize ?? chooseBlockSize(xa, xb)));
  const ba = getBlockMeans(xa, block);
  const bb = getBlockMeans(xb, block);
  const welch = ba.length >= 2 && bb.length >= 2 ? getWelchChangeTest(ba, bb, o.alpha) : null;
  const p_mann_whitney = getMannWhitneyPValue(ba, bb);
  let test: TTestName = 'welch';
  let p_value: number | null = welch?.p ?? null;
  let ci95: [number, number] | null = welch?.ci ?? null;
  if (!welch || !isRoughlyNormal(ba) || !isRoughlyNormal(bb)) {
    test = 'bootstrap';
    const boot = getBootstrapChangeTest(xa, xb, {
      block,
      resamples: o.resamples,
      rng: createRng(o.seed),
      alpha: o.alpha,
    });
    p_value = boot?.p ?? null;
    ci95 = boot?.ci ?? null;
  }

  const { verdict, reason } = decideChange(
    { change_pct, p_value, ci95, test, diff: mean_b - mean_a },
    direction,
    o,
  );
  return {
    ...base,
    change_pct,
    ci95,
    p_value,
    test,
    p_welch: welch?.p ?? null,
    p_mann_whitney,
    block_size: block,
    verdict,
    reason,
  };
}
