import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import ttest2 from '@stdlib/stats-ttest2';
import { mean, sampleVariance } from 'simple-statistics';

/** Complementary error function, relative error < 1.2e-7 (Numerical Recipes erfcc): accurate far in the tails. */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** Standard normal CDF. */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/**
 * Welch's t-test of b against a as a % change: the two-sided p-value and the (1 − alpha) t-interval of
 * mean(b) − mean(a), both over |mean(a)| · 100, from the same statistic and degrees of freedom (so the
 * interval excludes 0 exactly when p < alpha). CI null when mean(a) is 0. Needs ≥ 2 values each.
 */
export function getWelchChangeTest(
  a: number[],
  b: number[],
  alpha = 0.05,
): { p: number; ci: [number, number] | null } {
  const ma = mean(a);
  const scale = ma === 0 ? null : 100 / Math.abs(ma);
  const va = sampleVariance(a);
  const vb = sampleVariance(b);
  if (va === 0 && vb === 0) {
    const d = mean(b) - ma;
    return { p: d === 0 ? 1 : 0, ci: scale === null ? null : [d * scale, d * scale] };
  }
  const r = ttest2(b, a, { variance: 'unequal', alpha });
  const p = Number.isFinite(r.pValue) ? r.pValue : 1;
  const ci: [number, number] | null =
    scale === null || !r.ci.every(Number.isFinite) ? null : [r.ci[0] * scale, r.ci[1] * scale];
  return { p, ci };
}

/** Two-sided Welch t-test p-value; handles zero variance (equal means: 1, else 0). Needs ≥ 2 values each. */
export function getWelchPValue(a: number[], b: number[]): number {
  const va = sampleVariance(a);
  const vb = sampleVariance(b);
  if (va === 0 && vb === 0) return mean(a) === mean(b) ? 1 : 0;
  const p = ttest2(a, b, { variance: 'unequal' }).pValue;
  return Number.isFinite(p) ? p : 1;
}

function rankWithTies(values: number[]): { ranks: number[]; tieTerm: number } {
  const order = values.map((v, i) => [v, i] as const).sort((x, y) => x[0] - y[0]);
  const ranks = new Array<number>(values.length);
  let tieTerm = 0;
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    const t = j - i + 1;
    tieTerm += t ** 3 - t;
    for (let k = i; k <= j; k++) ranks[order[k][1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return { ranks, tieTerm };
}

/** P(U ≤ u) for the exact null distribution of Mann-Whitney U without ties. */
function exactUCdf(n1: number, n2: number, u: number): number {
  // f[m][n][k]: number of arrangements of m and n items with U = k; rolled over m.
  let prev: number[][] = Array.from({ length: n2 + 1 }, () => [1]);
  for (let m = 1; m <= n1; m++) {
    const cur: number[][] = [[1]];
    for (let n = 1; n <= n2; n++) {
      const size = m * n + 1;
      const row = new Array<number>(size).fill(0);
      const a = prev[n]; // U-distribution for (m-1, n): shifted by n
      const b = cur[n - 1]; // (m, n-1)
      for (let k = 0; k < size; k++) row[k] = (k - n >= 0 ? (a[k - n] ?? 0) : 0) + (b[k] ?? 0);
      cur.push(row);
    }
    prev = cur;
  }
  const dist = prev[n2];
  const total = dist.reduce((s, x) => s + x, 0);
  let acc = 0;
  for (let k = 0; k <= Math.floor(u) && k < dist.length; k++) acc += dist[k];
  return acc / total;
}

/**
 * Two-sided Mann-Whitney U p-value: exact when both samples have ≤ 20 values and no ties,
 * otherwise the normal approximation with tie and continuity corrections.
 */
export function getMannWhitneyPValue(a: number[], b: number[]): number {
  const n1 = a.length;
  const n2 = b.length;
  if (n1 === 0 || n2 === 0) return 1;
  const { ranks, tieTerm } = rankWithTies([...a, ...b]);
  const r1 = ranks.slice(0, n1).reduce((s, r) => s + r, 0);
  const u1 = r1 - (n1 * (n1 + 1)) / 2;
  const u = Math.min(u1, n1 * n2 - u1);
  if (tieTerm === 0 && n1 <= 20 && n2 <= 20) return Math.min(1, 2 * exactUCdf(n1, n2, u));
  const n = n1 + n2;
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  if (variance <= 0) return 1;
  const z = (Math.abs(u1 - (n1 * n2) / 2) - 0.5) / Math.sqrt(variance);
  return Math.min(1, 2 * normalCdf(-Math.max(0, z)));
}

/**
 * History test of one new value against earlier runs' values of the same metric (≥ 2): the new value is
 * compared with the t prediction interval of one more draw from the history, t = (x − m) / (s·√(1 + 1/n))
 * with n − 1 degrees of freedom. Returns the two-sided p and the (1 − alpha) interval of the % change
 * (x − m) / |m| · 100 (null when m is 0). Zero spread: p is 1 when x equals the history, else 0.
 */
export function getHistoryChangeTest(
  history: number[],
  x: number,
  alpha = 0.05,
): { p: number; ci: [number, number] | null } {
  const n = history.length;
  const m = mean(history);
  const scale = m === 0 ? null : 100 / Math.abs(m);
  const d = x - m;
  const s = n > 1 ? Math.sqrt(sampleVariance(history)) : 0;
  if (s === 0) return { p: d === 0 ? 1 : 0, ci: scale === null ? null : [d * scale, d * scale] };
  const se = s * Math.sqrt(1 + 1 / n);
  const p = Math.min(1, 2 * (1 - tCdf(Math.abs(d / se), n - 1)));
  const half = tQuantile(1 - alpha / 2, n - 1) * se;
  return { p, ci: scale === null ? null : [(d - half) * scale, (d + half) * scale] };
}
