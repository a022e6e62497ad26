import { describe, expect, it } from 'vitest';
import { STUCK_GRACE_S, isRunStuck } from './run-list';

const NOW = 1_800_000_000_000;
const started = (agoS: number) => new Date(NOW - agoS * 1000);

describe('isRunStuck', () => {
  it('flags a silent run once its expected duration and the grace have passed', () => {
    expect(isRunStuck({ startedAt: started(60 + STUCK_GRACE_S + 1), samples: 0, expectedS: 60 }, NOW)).toBe(
      true,
    );
    expect(isRunStuck({ startedAt: started(60 + STUCK_GRACE_S - 1), samples: 0, expectedS: 60 }, NOW)).toBe(
      false,
    );
  });
  it('never flags a run that sends samples', () => {
    expect(isRunStuck({ startedAt: started(86_400), samples: 3, expectedS: 60 }, NOW)).toBe(false);
  });
});
