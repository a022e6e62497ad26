import { describe, expect, it } from 'vitest';
import { compareSamples } from '@clusterscope/bench';
import { DEMO_REGRESSION_AT, simulateDemoRun } from './demo-runs';

describe('demo benchmark history', () => {
  it('is deterministic', () => {
    expect(simulateDemoRun(3)).toEqual(simulateDemoRun(3));
  });

  it('reads as noise between healthy runs and as a regression after the drop', () => {
    const before = simulateDemoRun(DEMO_REGRESSION_AT - 2).tps;
    const healthy = simulateDemoRun(DEMO_REGRESSION_AT - 1).tps;
    const after = simulateDemoRun(DEMO_REGRESSION_AT).tps;
    expect(compareSamples(before, healthy, 'higher').verdict).toBe('noise');
    const r = compareSamples(healthy, after, 'higher');
    expect(r.verdict).toBe('regression');
    expect(r.change_pct).toBeLessThan(-10);
  });
});
