import { describe, expect, it } from 'vitest';
import { compareSamples } from './compare-samples';
import { chooseBlockSize, getBlockMeans, getLag1Autocorrelation } from './describe';
import { createRng, drawAr1, drawNormal } from './prng';

const FAST = { resamples: 400 };

/**
 * The share of 200 seeded pairs of AR(1) samples (φ 0.7; `n` each, standard deviation `sd`, means 1000 and
 * `meanB`) that compareSamples judges a regression.
 */
function regressionShare(seed: number, n: number, sd: number, meanB: number): number {
  const rng = createRng(seed);
  let regressions = 0;
  const pairs = 200;
  for (let i = 0; i < pairs; i++) {
    const a = drawAr1(rng, n, 1000, sd, 0.7);
    const b = drawAr1(rng, n, meanB, sd, 0.7);
    if (compareSamples(a, b, 'higher', { ...FAST, seed: i }).verdict === 'regression') regressions++;
  }
  return regressions / pairs;
}

describe('compareSamples', () => {
  it('keeps false regressions ≤ 5% on A/A pairs of autocorrelated samples', () => {
    expect(regressionShare(11, 60, 40, 1000)).toBeLessThanOrEqual(0.05);
  });

  it('detects ≥ 95% of 15% slowdowns in autocorrelated samples', () => {
    expect(regressionShare(12, 30, 60, 850)).toBeGreaterThanOrEqual(0.95);
  });

  it('uses block means for autocorrelated samples', () => {
    const rng = createRng(13);
    const a = drawAr1(rng, 100, 50, 5, 0.8);
    expect(getLag1Autocorrelation(a)).toBeGreaterThan(0.6);
    expect(chooseBlockSize(a, a)).toBeGreaterThanOrEqual(8);
    const iid = Array.from({ length: 100 }, () => drawNormal(rng));
    expect(chooseBlockSize(iid, iid)).toBe(1);
    expect(getBlockMeans([1, 2, 3, 4, 5, 6, 7], 3)).toEqual([2, 5]);
  });

  it('respects the metric direction', () => {
    const rng = createRng(14);
    const base = Array.from({ length: 30 }, () => 10 + drawNormal(rng) * 0.3);
    const slower = Array.from({ length: 30 }, () => 12 + drawNormal(rng) * 0.3);
    const lat = compareSamples(base, slower, 'lower', FAST);
    expect(lat.verdict).toBe('regression');
    expect(lat.change_pct).toBeCloseTo(20, -0.5);
    expect(compareSamples(base, slower, 'higher', FAST).verdict).toBe('improvement');
    expect(compareSamples(slower, base, 'lower', FAST).verdict).toBe('improvement');
  });

  it('reports means, change and a bootstrap CI containing the true change', () => {
    const rng = createRng(15);
    const a = Array.from({ length: 200 }, () => 100 + drawNormal(rng) * 5);
    const b = Array.from({ length: 200 }, () => 110 + drawNormal(rng) * 5);
    const r = compareSamples(a, b, 'higher', { seed: 3 });
    expect(r.mean_a).toBeCloseTo(100, 0);
    expect(r.mean_b).toBeCloseTo(110, 0);
    expect(r.change_pct).toBeGreaterThan(9);
    expect(r.change_pct).toBeLessThan(11);
    const [lo, hi] = r.ci95 ?? [NaN, NaN];
    expect(lo).toBeLessThan(10);
    expect(hi).toBeGreaterThan(10);
    expect(hi - lo).toBeLessThan(3);
    expect(r.test).toBe('welch');
    expect(r.p_value).toBeLessThan(1e-10);
    expect(r.verdict).toBe('improvement');
    // Seeded: the same inputs give the same CI.
    expect(compareSamples(a, b, 'higher', { seed: 3 }).ci95).toEqual(r.ci95);
  });

  it('switches to a bootstrap test (CI and p from the same resamples) for heavy-tailed samples', () => {
    const rng = createRng(16);
    const spiky = () => Array.from({ length: 40 }, () => Math.exp(drawNormal(rng) * 1.2) * 10);
    const r = compareSamples(spiky(), spiky(), 'lower', FAST);
    expect(r.test).toBe('bootstrap');
    expect(r.p_value).not.toBe(r.p_welch);
    expect(r.ci95).not.toBeNull();
  });

  it('never shows a CI excluding 0 next to p ≥ 0.05, or the reverse (one test for both)', () => {
    const rng = createRng(21);
    let checked = 0;
    for (let i = 0; i < 300; i++) {
      // Shifts around the edge of significance, normal and heavy-tailed.
      const shift = 1 - (i % 10) * 0.01;
      const heavy = i % 3 === 0;
      const draw = (m: number) =>
        Array.from({ length: 30 }, () => (heavy ? Math.exp(drawNormal(rng)) * m : m + drawNormal(rng) * 40));
      const r = compareSamples(draw(1000), draw(1000 * shift), 'higher', { ...FAST, seed: i });
      if (!r.ci95 || r.p_value === null) continue;
      checked++;
      const excludes = r.ci95[0] > 0 || r.ci95[1] < 0;
      expect({ i, excludes, significant: r.p_value < 0.05 }).toEqual({
        i,
        excludes,
        significant: excludes,
      });
    }
    expect(checked).toBeGreaterThan(250);
  });

  it('calls a significant but tiny change noise', () => {
    const rng = createRng(17);
    const a = Array.from({ length: 500 }, () => 1000 + drawNormal(rng));
    const b = Array.from({ length: 500 }, () => 990 + drawNormal(rng));
    const r = compareSamples(a, b, 'higher', FAST);
    expect(r.p_value).toBeLessThan(1e-6);
    expect(r.verdict).toBe('noise');
    expect(r.reason).toMatch(/minimum effect/);
    expect(compareSamples(a, b, 'higher', { ...FAST, minEffectPct: 0.5 }).verdict).toBe('regression');
  });

  it('handles too few, constant and zero-baseline samples', () => {
    expect(compareSamples([1, 2], [3, 4, 5], 'higher')).toMatchObject({
      test: 'none',
      verdict: 'noise',
      p_value: null,
    });
    expect(compareSamples([5, 5, 5, 5], [5, 5, 5, 5], 'higher', FAST)).toMatchObject({
      verdict: 'noise',
      p_value: 1,
      change_pct: 0,
    });
    expect(compareSamples([5, 5, 5, 5], [4, 4, 4, 4], 'higher', FAST)).toMatchObject({
      verdict: 'regression',
      change_pct: -20,
    });
    const errs = compareSamples([0, 0, 0, 0, 0, 0], [3, 4, 2, 5, 3, 4], 'lower', FAST);
    expect(errs.change_pct).toBeNull();
    expect(errs.verdict).toBe('regression');
    expect(compareSamples([1, 2, NaN, 3], [1, 2, 3, Infinity], 'higher', FAST).n_a).toBe(3);
  });
});
