import { describe, expect, it, vi } from 'vitest';
import { createThrottle } from './throttle';

describe('createThrottle', () => {
  it('sends the first call at once and one trailing call per window', async () => {
    vi.useFakeTimers();
    const sent: number[] = [];
    const t = createThrottle<number>((v) => sent.push(v), { windowMs: 250, maxKeys: 10 });
    t.call('a', 1);
    t.call('a', 2);
    t.call('a', 3);
    expect(sent).toEqual([1]);
    await vi.advanceTimersByTimeAsync(300);
    expect(sent).toEqual([1, 2]);
    vi.useRealTimers();
  });

  it('keeps at most maxKeys keys', () => {
    const t = createThrottle<number>(() => undefined, { windowMs: 250, maxKeys: 100 });
    for (let i = 0; i < 10_000; i++) t.call(`k${i}`, i);
    expect(t.size()).toBeLessThanOrEqual(100);
  });
});
