import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Failed sign-ins, counted in this process (each web instance counts its own):
 * - per account and client address: 5 in 15 minutes, then that pair waits 15 minutes;
 * - per client address: 50 in 15 minutes across accounts (one address guessing many accounts);
 * - per account: 100 in an hour across addresses (a distributed guess at one account).
 * A success clears its account+address counter. One client's failures never block another client
 * before the per-account ceiling, which a single address cannot reach alone (its own cap is lower).
 */
export interface TSignInLimiter {
  /** Seconds to wait when any counter is exhausted, else null. */
  check(ip: string, account: string): Promise<number | null>;
  fail(ip: string, account: string): Promise<void>;
  succeed(ip: string, account: string): Promise<void>;
}

export function createSignInLimiter(
  opts: { pairMax?: number; ipMax?: number; accountMax?: number } = {},
): TSignInLimiter {
  const pair = new RateLimiterMemory({
    keyPrefix: 'pair',
    points: opts.pairMax ?? 5,
    duration: 15 * 60,
    blockDuration: 15 * 60,
  });
  const byIp = new RateLimiterMemory({ keyPrefix: 'ip', points: opts.ipMax ?? 50, duration: 15 * 60 });
  const byAccount = new RateLimiterMemory({
    keyPrefix: 'acct',
    points: opts.accountMax ?? 100,
    duration: 60 * 60,
  });
  const keys = (ip: string, account: string) => {
    const a = account.trim().toLowerCase();
    return [
      [pair, `${a}|${ip}`],
      [byIp, ip],
      [byAccount, a],
    ] as const;
  };
  return {
    async check(ip, account) {
      let waitMs = 0;
      for (const [limiter, key] of keys(ip, account)) {
        const res = await limiter.get(key);
        if (res && res.consumedPoints >= limiter.points) waitMs = Math.max(waitMs, res.msBeforeNext);
      }
      return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : null;
    },
    async fail(ip, account) {
      for (const [limiter, key] of keys(ip, account))
        await limiter.consume(key).catch((r: RateLimiterRes) => r);
    },
    async succeed(ip, account) {
      await pair.delete(`${account.trim().toLowerCase()}|${ip}`);
    },
  };
}

/** 429 with Retry-After for the JSON sign-in endpoint. */
export function tooManySignIns(retryAfterS: number): Response {
  return new Response(
    JSON.stringify({
      message: `too many sign-in attempts; try again in ${retryAfterS} s`,
      code: 'TOO_MANY_REQUESTS',
    }),
    { status: 429, headers: { 'content-type': 'application/json', 'retry-after': String(retryAfterS) } },
  );
}
