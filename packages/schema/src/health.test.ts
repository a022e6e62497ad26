import { describe, expect, it } from 'vitest';
import { deadFromSilence, TIME_UNTIL_STORE_DEAD_MS } from './health';

describe('deadFromSilence', () => {
  it('is DEAD only after time_until_store_dead of silence by the cluster clock', () => {
    expect(TIME_UNTIL_STORE_DEAD_MS).toBe(300_000);
    expect(deadFromSilence(16_000)).toBe(false);
    expect(deadFromSilence(299_999)).toBe(false);
    expect(deadFromSilence(300_000)).toBe(true);
    expect(deadFromSilence(null)).toBe(false); // no timestamps: not live, but not proven dead
    expect(deadFromSilence(60_000, 30_000)).toBe(true);
  });
});
