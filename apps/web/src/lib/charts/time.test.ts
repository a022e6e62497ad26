import { describe, expect, it } from 'vitest';
import {
  formatInstant,
  fromZonedInput,
  parseZoneMode,
  toZonedInput,
  zoneAbbrev,
  zoneOf,
  zoneOffsetMs,
} from './time';

const T = Date.UTC(2026, 10, 23, 7, 5, 0); // 2026-11-23 07:05:00Z
const NY = 'America/New_York';

describe('time zones', () => {
  it('reads the mode from the URL (browser zone unless tz=utc)', () => {
    expect(parseZoneMode('utc')).toBe('utc');
    expect(parseZoneMode('UTC')).toBe('utc');
    expect(parseZoneMode(null)).toBe('local');
    expect(parseZoneMode('mars')).toBe('local');
    expect(zoneOf('utc', NY)).toBe('UTC');
    expect(zoneOf('local', NY)).toBe(NY);
  });
  it('formats an instant in the zone (07:05Z is 02:05 in New York in November)', () => {
    expect(formatInstant(T, 'UTC')).toBe('2026-11-23 07:05:00');
    expect(formatInstant(T, NY)).toBe('2026-11-23 02:05:00');
    expect(formatInstant(T, NY, false)).toBe('2026-11-23 02:05');
    expect(zoneAbbrev(T, NY)).toBe('EST');
    expect(zoneAbbrev(T, 'UTC')).toBe('UTC');
    expect(zoneOffsetMs(T, NY)).toBe(-5 * 3_600_000);
    expect(zoneOffsetMs(Date.UTC(2026, 6, 1, 12), NY)).toBe(-4 * 3_600_000);
  });
  it('round-trips datetime-local values in the zone, across DST', () => {
    expect(toZonedInput(T, NY)).toBe('2026-11-23T02:05');
    expect(fromZonedInput('2026-11-23T02:05', NY)).toBe(T);
    expect(fromZonedInput('2026-07-01T12:00', NY)).toBe(Date.UTC(2026, 6, 1, 16));
    expect(fromZonedInput('2026-11-23T07:05', 'UTC')).toBe(T);
    expect(fromZonedInput('yesterday', NY)).toBeNull();
  });
});
