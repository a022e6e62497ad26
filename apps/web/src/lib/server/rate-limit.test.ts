import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRateLimiter } from './rate-limit';

const t0 = Date.parse('2026-01-01T00:00:00Z');

describe('createRateLimiter', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(t0);
  });
  afterEach(() => vi.useRealTimers());

  it('allows a burst of one second, then refuses with Retry-After until the window passed', async () => {
    const rl = createRateLimiter(5);
    for (let i = 0; i < 5; i++) expect((await rl.take('a')).ok).toBe(true);
    expect(await rl.take('a')).toEqual({ ok: false, retryAfterS: 1 });
    vi.setSystemTime(t0 + 900);
    expect((await rl.take('a')).ok).toBe(false);
    vi.setSystemTime(t0 + 1001);
    expect((await rl.take('a')).ok).toBe(true);
  });

  it('keeps counts per key', async () => {
    const rl = createRateLimiter(1);
    expect((await rl.take('a')).ok).toBe(true);
    expect((await rl.take('a')).ok).toBe(false);
    expect((await rl.take('b')).ok).toBe(true);
  });

  it('answers whole seconds for slow rates', async () => {
    const rl = createRateLimiter(0.25);
    expect((await rl.take('a')).ok).toBe(true);
    expect(await rl.take('a')).toEqual({ ok: false, retryAfterS: 4 });
  });

  it('rejects a non-positive rate', () => {
    expect(() => createRateLimiter(0)).toThrow(/rate must be > 0/);
  });
});
