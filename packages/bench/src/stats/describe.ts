import { mean } from 'simple-statistics';

/** Lag-1 autocorrelation; 0 for series shorter than 3 or constant. */
export function getLag1Autocorrelation(xs: number[]): number {
  if (xs.length < 3) return 0;
  const m = mean(xs);
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    den += (xs[i] - m) ** 2;
    if (i > 0) num += (xs[i] - m) * (xs[i - 1] - m);
  }
  return den === 0 ? 0 : num / den;
}

/** Blocks span this many "integrated autocorrelation times", so neighbouring block means are nearly independent. */
const BLOCK_FACTOR = 2;

/**
 * Block length that makes block means roughly independent for an AR(1)-like series:
 * (1 + ρ) / (1 − ρ), from the pooled lag-1 autocorrelation, capped so each sample keeps ≥ 4 blocks.
 */
export function chooseBlockSize(a: number[], b: number[]): number {
  // Lag-1 estimates are biased low by about (1 + 3ρ) / n; correct that before use.
  const corrected = (xs: number[]) => {
    const r = getLag1Autocorrelation(xs);
    return r + (1 + 3 * r) / xs.length;
  };
  const rho = Math.min(0.95, Math.max(0, (corrected(a) + corrected(b)) / 2));
  // Below the one-sided 95% bound for white noise, treat the samples as independent.
  if (rho < 1.645 / Math.sqrt(a.length + b.length)) return 1;
  const ideal = Math.ceil((BLOCK_FACTOR * (1 + rho)) / (1 - rho) - 1e-9);
  const cap = Math.max(1, Math.floor(Math.min(a.length, b.length) / 4));
  return Math.max(1, Math.min(ideal, cap));
}

/** Means of consecutive non-overlapping blocks; a shorter last block is dropped. */
export function getBlockMeans(xs: number[], size: number): number[] {
  if (size <= 1) return xs.slice();
  const out: number[] = [];
  for (let i = 0; i + size <= xs.length; i += size) out.push(mean(xs.slice(i, i + size)));
  return out;
}
