import { quantile } from 'simple-statistics';

function resampleMean(xs: number[], block: number, rng: () => number): number {
  const n = xs.length;
  let sum = 0;
  let count = 0;
  while (count < n) {
    const start = Math.floor(rng() * n);
    for (let k = 0; k < block && count < n; k++, count++) sum += xs[(start + k) % n];
  }
  return sum / n;
}

/**
 * Percentile CI (level e.g. 0.95) of the % change of the mean from `a` to `b`, by circular
 * moving-block bootstrap (blocks of `block` consecutive samples keep autocorrelation).
 */
export function getBootstrapChangeCi(
  a: number[],
  b: number[],
  opts: { block: number; resamples: number; rng: () => number; level?: number },
): [number, number] | null {
  const changes: number[] = [];
  for (let i = 0; i < opts.resamples; i++) {
    const ma = resampleMean(a, opts.block, opts.rng);
    const mb = resampleMean(b, opts.block, opts.rng);
    if (ma !== 0) changes.push(((mb - ma) / Math.abs(ma)) * 100);
  }
  if (changes.length < opts.resamples / 2) return null;
  const tail = (1 - (opts.level ?? 0.95)) / 2;
  return [quantile(changes, tail), quantile(changes, 1 - tail)];
}
