import { describe, expect, it } from 'vitest';
import { createRng, drawNormal } from './prng';
import { getMannWhitneyPValue, getWelchChangeTest, getWelchPValue, normalCdf } from './tests';

describe('two-sample tests', () => {
  it('Welch p matches R t.test (unequal variances)', () => {
    // R: t.test(c(1,2,3,4,5), c(2,4,6,8,10))$p.value = 0.1075312
    expect(getWelchPValue([1, 2, 3, 4, 5], [2, 4, 6, 8, 10])).toBeCloseTo(0.1075312, 6);
    expect(getWelchPValue([3, 3, 3], [3, 3, 3])).toBe(1);
    expect(getWelchPValue([3, 3, 3], [4, 4, 4])).toBe(0);
  });

  it('Mann-Whitney exact p for small samples without ties', () => {
    // R: wilcox.test(1:3, 4:6)$p.value = 0.1; wilcox.test(1:4, 5:8)$p.value = 0.02857143
    expect(getMannWhitneyPValue([1, 2, 3], [4, 5, 6])).toBeCloseTo(0.1, 12);
    expect(getMannWhitneyPValue([1, 2, 3, 4], [5, 6, 7, 8])).toBeCloseTo(0.02857143, 7);
    expect(getMannWhitneyPValue([1, 3, 5, 7], [2, 4, 6, 8])).toBeCloseTo(0.6857143, 6);
  });

  it('Mann-Whitney normal approximation with ties and far tails', () => {
    // R: wilcox.test(c(1,2,2,3), c(2,3,4,5,6))$p.value = 0.07985619 (ties: normal approx, continuity correction)
    expect(getMannWhitneyPValue([1, 2, 2, 3], [2, 3, 4, 5, 6])).toBeCloseTo(0.07985619, 6);
    // 25 vs 25 fully separated, no ties but n > 20: z = 312 / sqrt(2656.25), p = 1.4156562e-9
    const a = Array.from({ length: 25 }, (_, i) => i + 1);
    const b = Array.from({ length: 25 }, (_, i) => i + 26);
    expect(getMannWhitneyPValue(a, b) / 1.4156562e-9).toBeCloseTo(1, 5);
    expect(getMannWhitneyPValue([5, 5, 5], [5, 5, 5, 5])).toBe(1);
    const rng = createRng(3);
    const x = Array.from({ length: 200 }, () => drawNormal(rng));
    const y = Array.from({ length: 200 }, () => drawNormal(rng) + 1);
    expect(getMannWhitneyPValue(x, y)).toBeLessThan(1e-10);
    expect(
      getMannWhitneyPValue(
        x,
        x.map((v) => v + 1e-9),
      ),
    ).toBeGreaterThan(0.5);
  });

  it('normal CDF', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(0.1586553, 6);
    expect(normalCdf(-8) / 6.220961e-16).toBeCloseTo(1, 5);
  });

  it('gives the Welch t-interval of the % change from the same statistic as p', () => {
    // a: mean 3, var 2.5; b: mean 6, var 10 (n = 5). se = √(2.5/5 + 10/5) = √2.5;
    // df = 2.5² / (0.5²/4 + 2²/4) = 5.8824; t(0.975, 5.8824) = 2.45882.
    // CI of mean(b) − mean(a) = 3 ± 2.45882·√2.5 = [−0.8877, 6.8877] → over 3: [−29.59, 229.59] %.
    const r = getWelchChangeTest([1, 2, 3, 4, 5], [2, 4, 6, 8, 10]);
    expect(r.p).toBeCloseTo(0.1075312, 6);
    expect(r.ci![0]).toBeCloseTo(-29.591, 2);
    expect(r.ci![1]).toBeCloseTo(229.591, 2);
    expect(getWelchChangeTest([3, 3, 3], [4, 4, 4])).toEqual({ p: 0, ci: [100 / 3, 100 / 3] });
    expect(getWelchChangeTest([0, 0, 0], [1, 2, 3]).ci).toBeNull();
  });
});
