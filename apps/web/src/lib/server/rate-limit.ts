/**
 * In-memory token bucket per key (API token id), per process: `ratePerS` requests per second with a
 * burst of one second's worth. With several web instances behind a load balancer each enforces its own
 * bucket, so the effective limit is instances × rate; that is accepted for an abuse guard.
 */
export interface TRateLimiter {
  /** Takes one request; `retryAfterS` (whole seconds, ≥ 1) when the bucket is empty. */
  take(key: string, now?: number): { ok: true } | { ok: false; retryAfterS: number };
}

export function createRateLimiter(
  ratePerS: number,
  opts: { burst?: number; maxKeys?: number } = {},
): TRateLimiter {
  if (!(ratePerS > 0)) throw new Error(`rate must be > 0 requests/s, got ${ratePerS}`);
  const burst = Math.max(1, opts.burst ?? ratePerS);
  const maxKeys = opts.maxKeys ?? 10_000;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key, now = Date.now()) {
      let b = buckets.get(key);
      if (!b) {
        if (buckets.size >= maxKeys) {
          // Drop full (idle) buckets first; forgetting one only grants that key a fresh burst.
          for (const [k, v] of buckets)
            if (v.tokens + ((now - v.at) / 1000) * ratePerS >= burst) buckets.delete(k);
          if (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value as string);
        }
        b = { tokens: burst, at: now };
        buckets.set(key, b);
      } else {
        b.tokens = Math.min(burst, b.tokens + (Math.max(0, now - b.at) / 1000) * ratePerS);
        b.at = now;
      }
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return { ok: true };
      }
      return { ok: false, retryAfterS: Math.max(1, Math.ceil((1 - b.tokens) / ratePerS)) };
    },
  };
}
