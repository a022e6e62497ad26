import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Per-key (API token id) request limit in this process, from rate-limiter-flexible's memory store:
 * `ratePerS` requests per second, counted in windows of one burst (`burst` requests per `burst / ratePerS`
 * seconds). With several web instances behind a load balancer each counts its own, so the effective limit
 * is instances × rate; that is accepted for an abuse guard. Idle keys expire with their window.
 */
export interface TRateLimiter {
  /** Takes one request; `retryAfterS` (whole seconds, ≥ 1) when the key is over its limit. */
  take(key: string): Promise<{ ok: true } | { ok: false; retryAfterS: number }>;
}

export function createRateLimiter(ratePerS: number, opts: { burst?: number } = {}): TRateLimiter {
  if (!(ratePerS > 0)) throw new Error(`rate must be > 0 requests/s, got ${ratePerS}`);
  const points = Math.max(1, Math.round(opts.burst ?? ratePerS));
  const limiter = new RateLimiterMemory({ points, duration: points / ratePerS });
  return {
    async take(key) {
      try {
        await limiter.consume(key);
        return { ok: true };
      } catch (res) {
        if (!(res instanceof RateLimiterRes)) throw res;
        return { ok: false, retryAfterS: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
      }
    },
  };
}
