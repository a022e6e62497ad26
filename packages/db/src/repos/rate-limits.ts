import { RateLimiterPrisma, RateLimiterRes } from 'rate-limiter-flexible';
import type { TDb } from '../client';

export interface TSharedLimit {
  /** Names the limit; keys of different limits never meet. */
  name: string;
  points: number;
  windowS: number;
}

/** A limit whose count lives in PostgreSQL (the RateLimit table), so every web instance takes from one window. */
export interface TSharedLimiter {
  /** Takes one point of `key`; null when taken, else the milliseconds until the window has room again. */
  take(key: string): Promise<number | null>;
}

const limiters = new WeakMap<TDb, Map<string, RateLimiterPrisma>>();

export function createSharedLimiter(db: TDb, limit: TSharedLimit): TSharedLimiter {
  let byName = limiters.get(db);
  if (!byName) limiters.set(db, (byName = new Map()));
  let rl = byName.get(limit.name);
  if (!rl) {
    rl = new RateLimiterPrisma({
      storeClient: db,
      tableName: 'rateLimit',
      keyPrefix: limit.name,
      points: limit.points,
      duration: limit.windowS,
    });
    byName.set(limit.name, rl);
  }
  const limiter = rl;
  return {
    async take(key) {
      try {
        await limiter.consume(key);
        return null;
      } catch (res) {
        if (!(res instanceof RateLimiterRes)) throw res;
        return res.msBeforeNext;
      }
    },
  };
}
