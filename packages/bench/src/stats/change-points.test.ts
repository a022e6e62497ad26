import { describe, expect, it } from 'vitest';
import { detectChangePoints } from './change-points';
import { createRng, drawNormal } from './prng';

/** Normal noise of `sd` around the mean of each `[length, mean]` segment in turn. */
function piecewise(rng: () => number, sd: number, ...segments: [number, number][]): number[] {
  return segments.flatMap(([len, mean]) => Array.from({ length: len }, () => mean + drawNormal(rng) * sd));
}

function expectNear(found: number[], truth: number[]): void {
  expect(found).toHaveLength(truth.length);
  truth.forEach((t, i) =>
    expect(Math.abs(found[i] - t), `found ${found} truth ${truth}`).toBeLessThanOrEqual(2),
  );
}

describe('detectChangePoints (PELT)', () => {
  it('finds a single shift', () => {
    const rng = createRng(21);
    expectNear(detectChangePoints(piecewise(rng, 2, [60, 100], [40, 90])), [60]);
  });

  it('finds multiple shifts', () => {
    const rng = createRng(22);
    const xs = piecewise(rng, 1, [30, 10], [25, 14], [40, 8], [30, 12]);
    expectNear(detectChangePoints(xs), [30, 55, 95]);
    expectNear(detectChangePoints(xs, { cost: 'meanvar' }), [30, 55, 95]);
  });

  it('finds nothing in stationary noise', () => {
    let falseAlarms = 0;
    for (let seed = 0; seed < 50; seed++) {
      const rng = createRng(100 + seed);
      if (detectChangePoints(piecewise(rng, 3, [120, 50])).length > 0) falseAlarms++;
    }
    expect(falseAlarms).toBeLessThanOrEqual(3);
    expect(detectChangePoints(Array(40).fill(7))).toEqual([]);
  });

  it('finds a shift of 1.5 sd in noisy data and ignores a lone outlier', () => {
    const rng = createRng(23);
    const xs = piecewise(rng, 1, [80, 0], [80, 1.5]);
    expectNear(detectChangePoints(xs), [80]);
    const spike = piecewise(createRng(24), 1, [100, 20]);
    spike[50] = 40;
    expect(detectChangePoints(spike)).toEqual([]);
  });

  it('finds a variance change with the meanvar cost', () => {
    const rng = createRng(25);
    const xs = [...piecewise(rng, 1, [100, 0]), ...piecewise(rng, 5, [100, 0])];
    expectNear(detectChangePoints(xs, { cost: 'meanvar' }), [100]);
  });

  it('handles exact steps, short and non-finite input', () => {
    expect(detectChangePoints([1, 1, 1, 1, 5, 5, 5, 5])).toEqual([4]);
    expect(detectChangePoints([1, 2, 3])).toEqual([]);
    expect(detectChangePoints([])).toEqual([]);
    expect(detectChangePoints([1, 1, 1, NaN, 1, 9, 9, 9])).toEqual([4]);
  });
});
