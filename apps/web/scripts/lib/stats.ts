/** Timing helpers of the bench scripts. */

/** The p-th percentile (nearest rank) of `xs`; NaN when empty. */
export function pct(xs: readonly number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** Rounded to one decimal. */
export const r1 = (x: number) => Math.round(x * 10) / 10;

/** Wall times (ms) of `n` calls of `fn` one after another, sorted ascending. */
export async function timeCalls(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}
