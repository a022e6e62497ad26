/** Seeded uniform PRNG in [0, 1) (mulberry32): reproducible bootstraps and tests. */
export function createRng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal draw (Box-Muller) from a uniform PRNG. */
export function drawNormal(rng: () => number): number {
  const u = 1 - rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** AR(1) series with the given lag-1 autocorrelation, mean and marginal standard deviation. */
export function drawAr1(rng: () => number, n: number, mean: number, sd: number, phi: number): number[] {
  const innovation = sd * Math.sqrt(1 - phi * phi);
  const out: number[] = [];
  let x = drawNormal(rng) * sd;
  for (let i = 0; i < n; i++) {
    out.push(mean + x);
    x = phi * x + innovation * drawNormal(rng);
  }
  return out;
}
