import { z } from 'zod';
import { MAX_CHART_SPAN_DAYS, MAX_CHART_SPAN_MS } from './health';

/** CockroachDB NodeLivenessStatus, index = wire integer. */
export const LIVENESS = [
  'UNKNOWN',
  'DEAD',
  'UNAVAILABLE',
  'LIVE',
  'DECOMMISSIONING',
  'DECOMMISSIONED',
  'DRAINING',
  'STARTING',
] as const;
export const ZLiveness = z.enum(LIVENESS);
export type TLiveness = z.infer<typeof ZLiveness>;

export const SCOPES = ['ingest', 'runs:write', 'read', 'admin'] as const;
export const ZScope = z.enum(SCOPES);
export type TScope = z.infer<typeof ZScope>;

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export const ZRole = z.enum(ROLES);
export type TRole = z.infer<typeof ZRole>;

export const TOOLS = ['sysbench', 'cockroach-workload', 'pgbench', 'fio', 'wrk', 'hey'] as const;
export const ZTool = z.enum(TOOLS);
/**
 * Every output format a run's output can be read as: the runnable tools above, and the formats CI already
 * produces (Bencher Metric Format JSON, `go test -bench`, Google Benchmark JSON, pytest-benchmark JSON,
 * hyperfine JSON, k6's summary JSON, BenchBase's summary JSON, YCSB's and go-ycsb's report), which are
 * submitted, never started from the dashboard.
 */
export const FORMATS = [
  ...TOOLS,
  'bmf',
  'go-bench',
  'google-benchmark',
  'pytest-benchmark',
  'hyperfine',
  'k6',
  'benchbase',
  'ycsb',
] as const;
export const ZFormat = z.enum(FORMATS);
export type TFormat = z.infer<typeof ZFormat>;
export type TTool = z.infer<typeof ZTool>;

export const RUN_STATUSES = [
  'queued',
  'claimed',
  'running',
  'succeeded',
  'failed',
  'cancelled',
  'timed_out',
] as const;
export const ZRunStatus = z.enum(RUN_STATUSES);
export type TRunStatus = z.infer<typeof ZRunStatus>;
export const FINAL_RUN_STATUSES: readonly TRunStatus[] = ['succeeded', 'failed', 'cancelled', 'timed_out'];

export const ZDirection = z.enum(['higher', 'lower']);
export type TDirection = z.infer<typeof ZDirection>;

export const ZSlug = z
  .string()
  .min(2)
  .max(48)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes');

// ---- dates: every date input goes through one of these (1970-01-01 … 2299-12-31, ClickHouse DateTime64's range) ----

export const MIN_DATE_MS = 0;
export const MAX_DATE_MS = 10_413_791_999_999;
export const DATE_RANGE_MESSAGE = 'must be between 1970-01-01 and 2299-12-31';
const inDateRange = (ms: number) => ms >= MIN_DATE_MS && ms <= MAX_DATE_MS;

/** Epoch milliseconds in the date range; the agent converts CockroachDB ns. */
export const ZEpochMs = z.int().min(MIN_DATE_MS, DATE_RANGE_MESSAGE).max(MAX_DATE_MS, DATE_RANGE_MESSAGE);

/** Epoch milliseconds from a query string (`?from=1700000000000`) or a number. */
export const ZEpochMsQuery = z.coerce.number<unknown>().pipe(ZEpochMs);

/** ISO 8601 date-time with an offset (`2026-11-23T08:00:00Z`), in the date range. */
export const ZTimestamp = z.iso
  .datetime({ offset: true })
  .refine((s) => inDateRange(Date.parse(s)), DATE_RANGE_MESSAGE)
  .describe('ISO 8601 date-time with offset, between 1970-01-01 and 2299-12-31');

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
/** A day (`YYYY-MM-DD`, UTC) or a date-time, as list filters take it; `endOfDay` for an inclusive `to`. */
export function parseDay(s: string, endOfDay = false): number {
  return Date.parse(DAY_RE.test(s) ? `${s}T${endOfDay ? '23:59:59.999' : '00:00:00'}Z` : s);
}
export const ZDayOrTimestamp = z
  .string()
  .max(40)
  .refine((s) => {
    const ms = parseDay(s);
    return !Number.isNaN(ms) && inDateRange(ms);
  }, `not a date: expected YYYY-MM-DD or an ISO date-time; ${DATE_RANGE_MESSAGE}`);

// ---- free-form JSON (run/workload params): bounded depth and size, checked without recursion ----

export const MAX_JSON_DEPTH = 16;
export const MAX_JSON_BYTES = 64 * 1024;

/** Nesting depth of a JSON value (a scalar is 0, `{}` is 1), or Infinity once it passes `limit`. */
export function jsonDepth(v: unknown, limit = MAX_JSON_DEPTH): number {
  let max = 0;
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== 'object') continue;
    if (d + 1 > limit) return Infinity;
    max = Math.max(max, d + 1);
    for (const c of Object.values(x)) stack.push([c, d + 1]);
  }
  return max;
}

/** A JSON object of free-form values: at most MAX_JSON_DEPTH deep and MAX_JSON_BYTES as JSON. */
export const ZJsonObject = z.record(z.string().max(128), z.unknown()).superRefine((v, ctx) => {
  if (jsonDepth(v) === Infinity)
    ctx.addIssue({ code: 'custom', message: `nested deeper than ${MAX_JSON_DEPTH} levels` });
  else if (new TextEncoder().encode(JSON.stringify(v)).length > MAX_JSON_BYTES)
    ctx.addIssue({ code: 'custom', message: `larger than ${MAX_JSON_BYTES} bytes as JSON` });
});

// ---- chart windows ----

const HOUR_MS = 3_600_000;
/** Longest window that may force `resolution=raw` (raw rows are 10 s apart: ≤ 2160 points per node). */
export const MAX_RAW_SPAN_MS = 6 * HOUR_MS;
export const RESOLUTIONS = ['raw', '1m', '1h'] as const;
/** What a window was read over: [from, to) in epoch ms, from raw rows or a rollup. */
export const ZReadWindow = z.object({ from: z.number(), to: z.number(), resolution: z.enum(RESOLUTIONS) });
export const ZResolution = z
  .enum(RESOLUTIONS)
  .describe(
    'Table to read: `raw` (only for windows of at most 6 hours; 400 naming `resolution` above), the `1m` or `1h` rollup. Default: follows the window span.',
  );

export const ZChartWindow = z
  .object({
    from: ZEpochMs,
    to: ZEpochMs,
    resolution: ZResolution.optional(),
    /** Points per series at most (rollups widen their buckets to fit; Grafana's maxDataPoints). */
    maxPoints: z.number().int().min(10).max(10_000).optional(),
  })
  .refine((w) => w.to > w.from, { message: 'to must be after from', path: ['to'] })
  .refine((w) => w.to - w.from <= MAX_CHART_SPAN_MS, {
    message: `window must be at most ${MAX_CHART_SPAN_DAYS} days`,
    path: ['from'],
  })
  .refine((w) => w.resolution !== 'raw' || w.to - w.from <= MAX_RAW_SPAN_MS, {
    message: 'raw is allowed for windows of at most 6 hours; use 1m or 1h (or omit it)',
    path: ['resolution'],
  });
export type TChartWindow = z.infer<typeof ZChartWindow>;
