/**
 * Pure time-zone helpers: one zone for every time on a page (chart axes, tooltips, events, custom range).
 * The mode is `local` (the browser's zone, default) or `utc`, kept in the URL as `?tz=utc`.
 */

export type TZoneMode = 'local' | 'utc';

/** `?tz=` value → mode; anything but `utc` (any case) is the browser's zone. */
export const parseZoneMode = (v: string | null | undefined): TZoneMode =>
  v?.toLowerCase() === 'utc' ? 'utc' : 'local';

/** The IANA zone of a mode (`browserZone` is Intl's resolved zone). */
export const zoneOf = (mode: TZoneMode, browserZone: string): string =>
  mode === 'utc' ? 'UTC' : browserZone;

const partsCache = new Map<string, Intl.DateTimeFormat>();
function wallParts(ms: number, zone: string): Record<string, number> {
  let f = partsCache.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    partsCache.set(zone, f);
  }
  const out: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(ms))) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

/** Offset of `zone` from UTC at instant `ms`, in ms (New York in winter: −5 h). */
export function zoneOffsetMs(ms: number, zone: string): number {
  const p = wallParts(ms, zone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "2026-11-23 02:05:00" in `zone` (seconds optional). */
export function formatInstant(ms: number, zone: string, seconds = true): string {
  const p = wallParts(ms, zone);
  const s = `${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}`;
  return seconds ? `${s}:${pad(p.second)}` : s;
}

/** Short name of the zone at an instant: "UTC", "EST", "GMT+1". */
export function zoneAbbrev(ms: number, zone: string): string {
  if (zone === 'UTC') return 'UTC';
  const p = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' })
    .formatToParts(new Date(ms))
    .find((x) => x.type === 'timeZoneName');
  return p?.value ?? zone;
}

/** Value of a datetime-local input for `ms` in `zone` ("2026-11-23T02:05"). */
export const toZonedInput = (ms: number, zone: string): string =>
  formatInstant(ms, zone, false).replace(' ', 'T');

/** A datetime-local value read as wall time in `zone` → epoch ms (null when not a date). */
export function fromZonedInput(v: string, zone: string): number | null {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d))?$/.exec(v);
  if (!m) return null;
  const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] ?? 0));
  if (!Number.isFinite(wall)) return null;
  // The offset at the guess, then again at the result (a DST change between the two).
  const first = wall - zoneOffsetMs(wall, zone);
  return wall - zoneOffsetMs(first, zone);
}
