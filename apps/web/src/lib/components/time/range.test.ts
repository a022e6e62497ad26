import { describe, expect, it } from 'vitest';
import { parseInstant, parseRange, rangeQuery } from './range';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const q = (s: string) => parseRange(new URLSearchParams(s), NOW);

describe('parseRange', () => {
  it('defaults to the last hour', () => {
    expect(q('')).toEqual({ from: NOW - 3_600_000, to: NOW, key: '1h' });
  });
  it('reads presets', () => {
    expect(q('range=30d')).toMatchObject({ from: NOW - 30 * 86_400_000, to: NOW, key: '30d' });
    expect(q('range=15m').from).toBe(NOW - 900_000);
  });
  it('reads custom windows in epoch ms or ISO', () => {
    expect(q(`from=${NOW - 5000}&to=${NOW}`)).toEqual({ from: NOW - 5000, to: NOW, key: 'custom' });
    expect(q('from=2026-11-22T10:00&to=2026-11-22T11:00')).toEqual({
      from: Date.UTC(2026, 10, 22, 10),
      to: Date.UTC(2026, 10, 22, 11),
      key: 'custom',
    });
    expect(q(`from=${NOW - 60_000}`)).toMatchObject({ to: NOW, key: 'custom' });
  });
  it('falls back to the default with a message naming the field', () => {
    expect(q('range=2y')).toMatchObject({ key: '1h', error: expect.stringContaining('range') });
    expect(q('from=yesterday')).toMatchObject({ key: '1h', error: expect.stringContaining('from') });
    expect(q(`from=${NOW}&to=${NOW - 1}`)).toMatchObject({ key: '1h', error: 'to must be after from' });
    expect(q(`from=${NOW - 100 * 86_400_000}&to=${NOW}`).error).toContain('92 days');
  });
});

describe('helpers', () => {
  it('round-trips through the query string', () => {
    const r = q('range=6h');
    expect(rangeQuery(r)).toBe('?range=6h');
    const c = q(`from=${NOW - 5000}&to=${NOW}`);
    expect(q(rangeQuery(c).slice(1))).toEqual(c);
  });
  it('parses instants', () => {
    expect(parseInstant('1700000000000')).toBe(1_700_000_000_000);
    expect(parseInstant('2026-01-01T00:00:00Z')).toBe(Date.UTC(2026, 0, 1));
    expect(parseInstant('nope')).toBeNull();
  });
});
