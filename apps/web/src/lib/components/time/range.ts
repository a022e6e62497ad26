/** Time range of the dashboard, kept in the URL: `?range=1h` (preset, ends now) or `?from=&to=` (custom). */
import { MAX_CHART_SPAN_DAYS, MAX_CHART_SPAN_MS } from '@clusterscope/schema/health';

export const RANGE_PRESETS = ['15m', '1h', '6h', '24h', '7d', '30d'] as const;
export type TRangePreset = (typeof RANGE_PRESETS)[number];
export const DEFAULT_RANGE: TRangePreset = '1h';

const MIN = 60_000;
const PRESET_MS: Record<TRangePreset, number> = {
  '15m': 15 * MIN,
  '1h': 60 * MIN,
  '6h': 360 * MIN,
  '24h': 1440 * MIN,
  '7d': 7 * 1440 * MIN,
  '30d': 30 * 1440 * MIN,
};
/** Longest custom window (the one chart-window limit of @clusterscope/schema). */
export const MAX_SPAN_MS = MAX_CHART_SPAN_MS;

export interface TRange {
  from: number;
  to: number;
  /** The preset, or 'custom'. */
  key: TRangePreset | 'custom';
  /** Set when the URL asked for something invalid (the default range is used instead). */
  error?: string;
}

/** `from`/`to` may be epoch ms or an ISO date-time (what a datetime-local input submits, read as UTC). */
export function parseInstant(v: string): number | null {
  if (/^\d{10,14}$/.test(v)) return Number(v);
  const iso = /[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
}

/** Reads the range from URL search params; never throws (bad input → default range + error text). */
export function parseRange(params: URLSearchParams, now: number = Date.now()): TRange {
  const preset = (key: TRangePreset, error?: string): TRange => ({
    from: now - PRESET_MS[key],
    to: now,
    key,
    ...(error ? { error } : {}),
  });
  const fromS = params.get('from');
  const toS = params.get('to');
  if (fromS !== null || toS !== null) {
    const from = fromS ? parseInstant(fromS) : null;
    const to = toS ? parseInstant(toS) : now;
    if (from === null) return preset(DEFAULT_RANGE, `from: not a date (${fromS ?? 'missing'})`);
    if (to === null) return preset(DEFAULT_RANGE, `to: not a date (${toS})`);
    if (to <= from) return preset(DEFAULT_RANGE, 'to must be after from');
    if (to - from > MAX_SPAN_MS)
      return preset(DEFAULT_RANGE, `range must be at most ${MAX_CHART_SPAN_DAYS} days`);
    return { from, to, key: 'custom' };
  }
  const r = params.get('range');
  if (r === null || r === '') return preset(DEFAULT_RANGE);
  if ((RANGE_PRESETS as readonly string[]).includes(r)) return preset(r as TRangePreset);
  return preset(DEFAULT_RANGE, `range: unknown value ${JSON.stringify(r)} (use ${RANGE_PRESETS.join(', ')})`);
}

/** The query string that keeps a range (for links between cluster and node pages). */
export function rangeQuery(r: TRange): string {
  return r.key === 'custom' ? `?from=${r.from}&to=${r.to}` : `?range=${r.key}`;
}

/** Value for a datetime-local input (UTC, minutes). */
export const toInputValue = (ms: number) => new Date(ms).toISOString().slice(0, 16);
