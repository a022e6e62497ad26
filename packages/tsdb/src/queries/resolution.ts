export type TResolution = 'raw' | '1m' | '1h';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Spans up to which each resolution is used, and how long each table keeps data (TTL minus a day). */
export const RESOLUTION_LIMITS = {
  rawMaxSpanMs: 6 * HOUR,
  oneMinuteMaxSpanMs: 2 * DAY,
  rawRetentionMs: 34 * DAY,
  oneMinuteRetentionMs: 89 * DAY,
} as const;

/**
 * Picks the table for a [from, to) window: raw up to 6 h (≤ 2160 points per node at 10 s),
 * the 1 m rollup up to 2 days (≤ 2880 points), else the 1 h rollup; a window reaching past a
 * table's retention falls through to the next coarser one.
 */
export function pickResolution(from: number, to: number, now: number = Date.now()): TResolution {
  const span = to - from;
  const L = RESOLUTION_LIMITS;
  if (span <= L.rawMaxSpanMs && from >= now - L.rawRetentionMs) return 'raw';
  if (span <= L.oneMinuteMaxSpanMs && from >= now - L.oneMinuteRetentionMs) return '1m';
  return '1h';
}

/** Bucket width in ms of a resolution (0 for raw). */
export const bucketMs = (r: TResolution): number => (r === '1m' ? 60_000 : r === '1h' ? HOUR : 0);
