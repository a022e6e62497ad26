import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { debounce } from './live';

describe('debounce', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('collapses a burst into one call after the quiet time', () => {
    const fn = vi.fn();
    const d = debounce(fn, 250, 1000);
    d();
    vi.advanceTimersByTime(100);
    d();
    vi.advanceTimersByTime(249);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('still fires within maxWait while calls keep coming', () => {
    const fn = vi.fn();
    const d = debounce(fn, 250, 1000);
    for (let i = 0; i < 12; i++) {
      d();
      vi.advanceTimersByTime(100);
    }
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('can be cancelled', () => {
    const fn = vi.fn();
    const d = debounce(fn, 50, 100);
    d();
    d.cancel();
    vi.advanceTimersByTime(500);
    expect(fn).not.toHaveBeenCalled();
  });
});
