import { describe, expect, it } from 'vitest';
import { bucketMs, pickResolution } from './resolution';

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
