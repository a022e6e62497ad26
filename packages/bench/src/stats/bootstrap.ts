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

function resampleChanges(
  a: number[],
  b: number[],
  opts: { block: number; resamples: number; rng: () => number },
): number[] {
  const changes: number[] = [];
  for (let i = 0; i < opts.resamples; i++) {
    const ma = resampleMean(a, opts.block, opts.rng);
    const mb = resampleMean(b, opts.block, opts.rng);
    if (ma !== 0) changes.push(((mb - ma) / Math.abs(ma)) * 100);
  }
  return changes;
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
  const changes = resampleChanges(a, b, opts);
  if (changes.length < opts.resamples / 2) return null;
  const tail = (1 - (opts.level ?? 0.95)) / 2;
  return [quantile(changes, tail), quantile(changes, 1 - tail)];
}

/**
 * Bootstrap test of "no change": the CI is the pair of order statistics k and R−1−k of the resampled
 * % changes (k = ⌈R·α/2⌉ − 1) and p = 2·min(#changes ≤ 0, #changes ≥ 0) / R. Both read the same
 * resamples, so the CI excludes 0 exactly when p < α.
 */
export function getBootstrapChangeTest(
  a: number[],
  b: number[],
  opts: { block: number; resamples: number; rng: () => number; alpha?: number },
): { ci: [number, number]; p: number } | null {
  const changes = resampleChanges(a, b, opts).sort((x, y) => x - y);
  const r = changes.length;
  if (r < opts.resamples / 2 || r < 2) return null;
  const k = Math.max(0, Math.ceil((r * (opts.alpha ?? 0.05)) / 2) - 1);
  let le = 0;
  let ge = 0;
  for (const c of changes) {
    if (c <= 0) le++;
    if (c >= 0) ge++;
  }
  return { ci: [changes[k], changes[r - 1 - k]], p: Math.min(1, (2 * Math.min(le, ge)) / r) };
}
