import { describe, expect, it } from 'vitest';
import { describeNoise } from './noise';

const opts = { alpha: 0.05, minEffectPct: 9, direction: 'higher' as const };

describe('describeNoise', () => {
  it('needs three runs and a non-zero mean', () => {
    expect(describeNoise([100, 101], opts)).toBeNull();
    expect(describeNoise([0, 0, 0], opts)).toBeNull();
  });

  it('quiet runs detect the minimum effect', () => {
    const n = describeNoise([1000, 1002, 998, 1001, 999], opts)!;
    expect(n.cvPct).toBeCloseTo(0.158, 2);
    expect(n.detectablePct).toBe(9);
    expect(n.basis).toMatch(/minimum effect of 9%/);
  });

  it('noisy runs detect only changes beyond their prediction interval', () => {
    // sd 100 on mean 1000 (CV 10 %), n = 5: t(0.975, 4) = 2.776, half-width 2.776 * 10 * sqrt(1.2) = 30.4 %.
    const n = describeNoise([900, 1000, 1100, 1000, 1000], { ...opts })!;
    expect(n.cvPct).toBeCloseTo(7.07, 1);
    expect(n.detectablePct).toBeCloseTo(2.776 * 7.071 * Math.sqrt(1.2), 0);
    expect(n.basis).toMatch(/run-to-run spread over 5 runs/);
  });

  it('a threshold decides what is detectable', () => {
    const n = describeNoise([1000, 1002, 998, 1001, 999], {
      ...opts,
      threshold: { test: 'percentage', limit: 7, minSamples: 2 },
    })!;
    expect(n.detectablePct).toBeCloseTo(7, 6);
    expect(n.basis).toBe('the percentage threshold (limit 7) over 5 runs');
  });
});
