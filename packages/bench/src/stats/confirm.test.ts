import { describe, expect, it } from 'vitest';
import { getConfirmFloorPct, SCREEN_EFFECT_PCT } from '@clusterscope/schema';
import { judgeConfirmationMean } from './confirm';

describe('confirmation mean', () => {
  it('the floor falls with √n from the minimum effect, and the screening floor is a third of it', () => {
    expect(getConfirmFloorPct(1)).toBe(9);
    expect(getConfirmFloorPct(2)).toBeCloseTo(6.364, 3);
    expect(getConfirmFloorPct(4)).toBe(4.5);
    expect(SCREEN_EFFECT_PCT).toBe(3);
  });

  it('confirms a mean regression past the floor, in the metric direction', () => {
    expect(judgeConfirmationMean([-8, -6], 'higher')).toMatchObject({ confirmed: true, meanPct: -7 });
    expect(judgeConfirmationMean([-6, -6], 'higher')).toMatchObject({ confirmed: false, meanPct: -6 });
    expect(judgeConfirmationMean([7, 6], 'lower').confirmed).toBe(true);
    expect(judgeConfirmationMean([-7, -6], 'lower').confirmed).toBe(false);
  });

  it('confirms nothing without counted runs', () => {
    expect(judgeConfirmationMean([], 'higher').confirmed).toBe(false);
  });
});
