import { describe, expect, it } from 'vitest';
import { age, displayState } from './state';

describe('displayState', () => {
  it('turns a node STALE once 3 intervals passed on the page clock', () => {
    expect(displayState('LIVE', 0, 30_000, 10)).toBe('LIVE');
    expect(displayState('LIVE', 0, 30_001, 10)).toBe('STALE');
    expect(displayState('DEAD', 0, 31_000, 10)).toBe('STALE');
    expect(displayState('DECOMMISSIONED', 0, 1e9, 10)).toBe('DECOMMISSIONED');
  });
  it('formats ages', () => {
    expect(age(4_400)).toBe('4s');
    expect(age(185_000)).toBe('3m');
    expect(age(2 * 3_600_000 + 5)).toBe('2h');
    expect(age(5 * 86_400_000)).toBe('5d');
    expect(age(-50)).toBe('0s');
  });
});
