import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limit';

describe('createRateLimiter', () => {
  it('allows a burst of one second, then refuses with Retry-After until refilled', () => {
    const rl = createRateLimiter(5);
    const t0 = 1_000_000;
    for (let i = 0; i < 5; i++) expect(rl.take('a', t0).ok).toBe(true);
    const no = rl.take('a', t0);
    expect(no).toEqual({ ok: false, retryAfterS: 1 });
    expect(rl.take('a', t0 + 199).ok).toBe(false);
    expect(rl.take('a', t0 + 400).ok).toBe(true);
  });

  it('keeps buckets per key', () => {
    const rl = createRateLimiter(1);
    expect(rl.take('a', 0).ok).toBe(true);
    expect(rl.take('a', 0).ok).toBe(false);
    expect(rl.take('b', 0).ok).toBe(true);
  });

  it('answers whole seconds for slow rates', () => {
    const rl = createRateLimiter(0.25);
    expect(rl.take('a', 0).ok).toBe(true);
    expect(rl.take('a', 0)).toEqual({ ok: false, retryAfterS: 4 });
  });

  it('bounds the number of remembered keys', () => {
    const rl = createRateLimiter(1, { maxKeys: 3 });
    for (const k of ['a', 'b', 'c', 'd', 'e']) expect(rl.take(k, 0).ok).toBe(true);
  });

  it('rejects a non-positive rate', () => {
    expect(() => createRateLimiter(0)).toThrow(/rate must be > 0/);
  });
});
