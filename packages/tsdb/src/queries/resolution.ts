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

/**
 * The most points one series of a rollup read over [from, to) can have (the bucket that holds `from`
 * included), so its columns are sized once rather than reallocated as they fill. 0 for raw (unknown:
 * columns grow).
 */
export function rollupPoints(r: TResolution, from: number, to: number, stepMs?: number): number {
  const step = r === 'raw' ? 0 : Math.max(bucketMs(r), stepMs ?? 0);
  return step > 0 ? Math.ceil((to - from) / step) + 2 : 0;
}

/** Points per series a chart asks for when it does not say (Grafana's maxDataPoints). */
export const DEFAULT_MAX_POINTS = 500;
const NICE: Record<Exclude<TResolution, 'raw'>, number[]> = {
  '1m': [1, 2, 5, 10, 15, 30, 60],
  '1h': [1, 2, 3, 4, 6, 12, 24],
};

/**
 * Bucket width for a rollup chart: the table's bucket times the smallest nice multiple that keeps a
 * series at or under `maxPoints` (30 days of 1 h buckets at 500 points: 2 h). Raw is never re-bucketed.
 */
export function chartStepMs(
  r: TResolution,
  from: number,
  to: number,
  maxPoints: number = DEFAULT_MAX_POINTS,
): number {
  if (r === 'raw') return 0;
  const base = bucketMs(r);
  const buckets = Math.ceil((to - from) / base);
  const m = NICE[r].find((k) => buckets / k <= maxPoints) ?? NICE[r][NICE[r].length - 1];
  return base * m;
}

/**
 * SQL that floors a time to the bucket of a rollup read: the table's own (toStartOfMinute/Hour) or,
 * with a wider `stepMs`, toStartOfInterval of that many seconds (epoch-aligned).
 */
export function rollupBucketSql(r: Exclude<TResolution, 'raw'>, stepMs?: number): { of(x: string): string } {
  const base = bucketMs(r);
  if (stepMs === undefined || stepMs <= base) {
    const fn = r === '1m' ? 'toStartOfMinute' : 'toStartOfHour';
    return { of: (x) => `${fn}(${x})` };
  }
  if (!Number.isInteger(stepMs / base)) throw new Error(`stepMs ${stepMs} is not a multiple of ${base}`);
  const s = stepMs / 1000;
  return { of: (x) => `toStartOfInterval(${x}, INTERVAL ${s} SECOND)` };
}
