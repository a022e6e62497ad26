import { describe, expect, it } from 'vitest';
import { bucketMs, chartStepMs, pickResolution, rollupPoints } from './resolution';

const H = 3_600_000;
const D = 24 * H;
const now = Date.UTC(2026, 10, 22);

describe('pickResolution', () => {
  it('uses raw up to 6 h, 1m up to 2 days, else 1h', () => {
    expect(pickResolution(now - H, now, now)).toBe('raw');
    expect(pickResolution(now - 6 * H, now, now)).toBe('raw');
    expect(pickResolution(now - 6 * H - 1, now, now)).toBe('1m');
    expect(pickResolution(now - 2 * D, now, now)).toBe('1m');
    expect(pickResolution(now - 2 * D - 1, now, now)).toBe('1h');
    expect(pickResolution(now - 30 * D, now, now)).toBe('1h');
  });

  it('falls through to a coarser table when the window is older than its retention', () => {
    expect(pickResolution(now - 40 * D, now - 40 * D + H, now)).toBe('1m');
    expect(pickResolution(now - 100 * D, now - 100 * D + H, now)).toBe('1h');
  });

  it('knows bucket widths', () => {
    expect([bucketMs('raw'), bucketMs('1m'), bucketMs('1h')]).toEqual([0, 60_000, H]);
  });
});

describe('chartStepMs', () => {
  it('keeps the table bucket while a series fits in maxPoints', () => {
    expect(chartStepMs('1h', now - 14 * D, now, 500)).toBe(H);
    expect(chartStepMs('1m', now - 6 * H, now, 500)).toBe(60_000);
    expect(chartStepMs('raw', now - 6 * H, now, 10)).toBe(0);
  });

  it('widens to the next nice multiple when it does not', () => {
    expect(chartStepMs('1h', now - 30 * D, now, 500)).toBe(2 * H);
    expect(chartStepMs('1h', now - 90 * D, now, 500)).toBe(6 * H);
    expect(chartStepMs('1m', now - 2 * D, now, 500)).toBe(10 * 60_000);
    expect(chartStepMs('1h', now - 92 * D, now, 10)).toBe(24 * H);
  });
});

describe('rollupPoints', () => {
  it('bounds the points of one rollup series (the bucket holding `from` included); raw is unknown', () => {
    expect(rollupPoints('1h', now - 30 * D, now, 2 * H)).toBe(362);
    expect(rollupPoints('1m', now - H + 30_000, now)).toBe(62);
    expect(rollupPoints('raw', now - H, now)).toBe(0);
  });
});
