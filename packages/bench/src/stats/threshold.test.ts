import { describe, expect, it } from 'vitest';
import { evaluateThreshold } from './threshold';

const BASE = [100, 102, 98, 101, 99]; // mean 100, sample sd 1.5811

describe('evaluateThreshold', () => {
  it('percentage: max % worse than the baseline mean', () => {
    const cfg = { test: 'percentage' as const, limit: 10, minSamples: 2 };
    expect(evaluateThreshold(cfg, BASE, 91, 'higher')).toMatchObject({
      crossed: false,
      status: 'ok',
      boundary: { lo: 90, hi: 110 },
    });
    expect(evaluateThreshold(cfg, BASE, 89, 'higher')).toMatchObject({ crossed: true, status: 'crossed' });
    // Only the worse side counts.
    expect(evaluateThreshold(cfg, BASE, 150, 'higher').crossed).toBe(false);
    expect(evaluateThreshold(cfg, BASE, 111, 'lower').crossed).toBe(true);
    expect(evaluateThreshold(cfg, BASE, 50, 'lower').crossed).toBe(false);
  });

  it('z_score: |z| > limit on the worse side', () => {
    const cfg = { test: 'z_score' as const, limit: 2, minSamples: 3 };
    const r = evaluateThreshold(cfg, BASE, 96.8, 'higher');
    expect(r.boundary?.lo).toBeCloseTo(100 - 2 * 1.5811388, 6);
    expect(r.crossed).toBe(true);
    expect(evaluateThreshold(cfg, BASE, 97, 'higher').crossed).toBe(false);
    expect(evaluateThreshold(cfg, BASE, 103.2, 'lower').crossed).toBe(true);
  });

  it('t_test: one-sided prediction interval, limit as confidence or critical t', () => {
    // qt(0.99, 4) = 3.746947; half-width = 3.746947 * 1.5811388 * sqrt(1 + 1/5)
    const half = 3.746947 * 1.5811388 * Math.sqrt(1.2);
    const r = evaluateThreshold(
      { test: 't_test', limit: 0.99, minSamples: 2 },
      BASE,
      100 + half + 0.01,
      'lower',
    );
    expect(r.boundary?.hi).toBeCloseTo(100 + half, 4);
    expect(r.crossed).toBe(true);
    expect(evaluateThreshold({ test: 't_test', limit: 0.99 }, BASE, 100 + half - 0.01, 'lower').crossed).toBe(
      false,
    );
    const crit = evaluateThreshold({ test: 't_test', limit: 2 }, BASE, 95, 'higher');
    expect(crit.boundary?.lo).toBeCloseTo(100 - 2 * 1.5811388 * Math.sqrt(1.2), 6);
    expect(crit.crossed).toBe(true);
  });

  it('iqr: outside Q1 − k·IQR .. Q3 + k·IQR', () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8];
    const r = evaluateThreshold({ test: 'iqr', limit: 1.5, minSamples: 4 }, xs, 14, 'lower');
    // Linear-interpolation quartiles (R type 7): Q1 = 2.75, Q3 = 6.25, IQR = 3.5.
    expect(r.boundary).toEqual({ lo: 2.75 - 1.5 * 3.5, hi: 6.25 + 1.5 * 3.5 });
    expect(r.crossed).toBe(true);
    expect(evaluateThreshold({ test: 'iqr', limit: 1.5 }, xs, 11, 'lower').crossed).toBe(false);
    expect(evaluateThreshold({ test: 'iqr', limit: 1.5 }, xs, -4, 'higher').crossed).toBe(true);
  });

  it('is insufficient below minSamples', () => {
    const r = evaluateThreshold({ test: 'z_score', limit: 3, minSamples: 6 }, BASE, 0, 'higher');
    expect(r).toMatchObject({ status: 'insufficient', crossed: false, boundary: null, baseline_mean: 100 });
    expect(evaluateThreshold({ test: 'percentage', limit: 5 }, [], 1, 'higher').status).toBe('insufficient');
    expect(() => evaluateThreshold({ test: 'percentage', limit: -1 }, BASE, 1, 'higher')).toThrow(/limit/);
  });
});
