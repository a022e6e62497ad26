import { median } from 'simple-statistics';

export type TChangePointOptions = {
  /** 'mean': shifts in the mean with a robust noise estimate (default); 'meanvar': mean and/or variance shifts. */
  cost?: 'mean' | 'meanvar';
  /** 'mbic' (3·ln n, default), 'bic' (2·ln n) or a number in cost units. */
  penalty?: 'mbic' | 'bic' | number;
  /** Shortest segment (default 3). With the 'mean' cost, lone outliers are clipped first and are not changes. */
  minSegmentLength?: number;
};

type TCost = (s: number, t: number) => number;

/** Noise sd from first differences (MAD), robust to the mean shifts being looked for. */
function estimateNoiseSd(xs: number[]): number {
  const diffs = xs.slice(1).map((x, i) => Math.abs(x - xs[i]));
  const mad = diffs.length ? median(diffs) : 0;
  const sd = mad / (0.6745 * Math.SQRT2);
  const scale = Math.max(...xs.map(Math.abs), 0);
  return Math.max(sd, scale * 1e-9, 1e-12);
}

/**
 * Clips each value to its rolling median ± 3 sd (window 2·half+1): a lone outlier then costs little,
 * while a real shift moves the median with it.
 */
function clipOutliers(xs: number[], half: number, sd: number): number[] {
  return xs.map((x, i) => {
    const m = median(xs.slice(Math.max(0, i - half), i + half + 1));
    return Math.min(m + 3 * sd, Math.max(m - 3 * sd, x));
  });
}

function makeCost(raw: number[], kind: 'mean' | 'meanvar', half: number): TCost {
  const xs = kind === 'mean' ? clipOutliers(raw, half, estimateNoiseSd(raw)) : raw;
  const n = xs.length;
  const s1 = new Float64Array(n + 1);
  const s2 = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    s1[i + 1] = s1[i] + xs[i];
    s2[i + 1] = s2[i] + xs[i] * xs[i];
  }
  const sd = estimateNoiseSd(xs);
  const sumSq = (s: number, t: number) => {
    const len = t - s;
    const sum = s1[t] - s1[s];
    return Math.max(0, s2[t] - s2[s] - (sum * sum) / len);
  };
  if (kind === 'mean') return (s, t) => sumSq(s, t) / (sd * sd);
  // −2·log-likelihood of a normal segment with its own mean and variance (variance floored at (sd/10)²).
  const floor = (sd * sd) / 100;
  return (s, t) => {
    const len = t - s;
    return len * (Math.log(2 * Math.PI * Math.max(sumSq(s, t) / len, floor)) + 1);
  };
}

/**
 * PELT (Killick et al. 2012) change-point detection. Returns the indices where a new segment
 * starts, ascending: for [1,1,1,5,5,5] → [3].
 */
export function detectChangePoints(series: number[], opts: TChangePointOptions = {}): number[] {
  const xs = series.filter(Number.isFinite);
  const n = xs.length;
  const minLen = Math.max(2, Math.floor(opts.minSegmentLength ?? 3));
  if (n < 2 * minLen) return [];
  const kind = opts.cost ?? 'mean';
  const cost = makeCost(xs, kind, minLen);
  const params = kind === 'mean' ? 1 : 2;
  const pen =
    typeof opts.penalty === 'number'
      ? opts.penalty
      : (opts.penalty === 'bic' ? params + 1 : params + 2) * Math.log(n);

  const F = new Float64Array(n + 1).fill(Infinity);
  const last = new Int32Array(n + 1).fill(-1);
  F[0] = -pen;
  let candidates = [0];
  for (let t = minLen; t <= n; t++) {
    if (t - minLen >= minLen) candidates.push(t - minLen);
    let best = Infinity;
    let arg = -1;
    for (const s of candidates) {
      if (!Number.isFinite(F[s])) continue;
      const v = F[s] + cost(s, t) + pen;
      if (v < best) {
        best = v;
        arg = s;
      }
    }
    F[t] = best;
    last[t] = arg;
    // Pruning: s can never be optimal again once F[s] + C(s, t) > F[t].
    candidates = candidates.filter((s) => !Number.isFinite(F[s]) || F[s] + cost(s, t) <= F[t]);
  }
  const cps: number[] = [];
  for (let t = last[n]; t > 0; t = last[t]) cps.push(t);
  return cps.reverse();
}
