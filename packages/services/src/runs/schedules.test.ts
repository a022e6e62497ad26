import { describe, expect, it } from 'vitest';
import { findDueSlot, listNextRuns, parseCron } from './schedules';

const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('schedule slots (fake clock)', () => {
  it('reads the cron expression in its time zone', () => {
    // 03:00 in Berlin is 02:00 UTC in winter (CET) and 01:00 UTC in summer (CEST).
    expect(listNextRuns('0 3 * * *', 'Europe/Berlin', new Date('2026-01-10T12:00:00Z'), 2).map(iso)).toEqual([
      '2026-01-11T02:00:00.000Z',
      '2026-01-12T02:00:00.000Z',
    ]);
    expect(listNextRuns('0 3 * * *', 'Europe/Berlin', new Date('2026-07-10T12:00:00Z'), 1).map(iso)).toEqual([
      '2026-07-11T01:00:00.000Z',
    ]);
    expect(listNextRuns('0 3 * * *', 'UTC', new Date('2026-07-10T12:00:00Z'), 1).map(iso)).toEqual([
      '2026-07-11T03:00:00.000Z',
    ]);
  });

  it('keeps local time across the DST changes (the spring gap and the repeated autumn hour fire once)', () => {
    // Europe/Berlin: 2026-03-29 02:00 → 03:00 (02:30 does not exist); 2026-10-25 03:00 → 02:00 (02:30 twice).
    const spring = listNextRuns('30 2 * * *', 'Europe/Berlin', new Date('2026-03-27T12:00:00Z'), 3).map(iso);
    expect(spring[0]).toBe('2026-03-28T01:30:00.000Z');
    expect(spring[2]).toBe('2026-03-30T00:30:00.000Z');
    // The missing 02:30 fires once that day, at the first valid local time after the gap.
    expect(spring[1]).toMatch(/^2026-03-29T/);
    const autumn = listNextRuns('30 2 * * *', 'Europe/Berlin', new Date('2026-10-24T12:00:00Z'), 3).map(iso);
    expect(autumn.filter((t) => t!.startsWith('2026-10-25'))).toHaveLength(1);
    expect(autumn[1]).toBe('2026-10-26T01:30:00.000Z');
    // America/New_York moves on another date (2026-03-08): 09:00 local is 14:00 UTC before, 13:00 after.
    expect(
      listNextRuns('0 9 * * *', 'America/New_York', new Date('2026-03-07T00:00:00Z'), 2).map(iso),
    ).toEqual(['2026-03-07T14:00:00.000Z', '2026-03-08T13:00:00.000Z']);
  });

  it('fires the latest slot within the lookback only, never a backlog', () => {
    const cron = '*/15 * * * *';
    expect(iso(findDueSlot(cron, 'UTC', new Date('2026-05-01T10:15:00Z')))).toBe('2026-05-01T10:15:00.000Z');
    expect(iso(findDueSlot(cron, 'UTC', new Date('2026-05-01T10:22:00Z')))).toBe('2026-05-01T10:15:00.000Z');
    // Down from 09:00 to 10:22: only 10:15 fires, not the five slots before it.
    expect(iso(findDueSlot(cron, 'UTC', new Date('2026-05-01T10:22:00Z'), 82 * 60_000))).toBe(
      '2026-05-01T10:15:00.000Z',
    );
    // A daily slot older than the lookback is not fired late.
    expect(findDueSlot('0 3 * * *', 'UTC', new Date('2026-05-01T03:30:00Z'))).toBeNull();
    expect(iso(findDueSlot('0 3 * * *', 'UTC', new Date('2026-05-01T03:05:00Z')))).toBe(
      '2026-05-01T03:00:00.000Z',
    );
  });

  it('refuses a bad expression or time zone naming the field', () => {
    expect(() => parseCron('61 * * * *', 'UTC')).toThrow(/^cron: /);
    expect(() => parseCron('0 3 * *', 'UTC')).toThrow(/^cron: /);
    expect(() => parseCron('0 3 * * *', 'Mars/Olympus')).toThrow(/^timezone: /);
    expect(() => parseCron('0 0 30 2 *', 'UTC')).toThrow(/never fires/);
  });
});
