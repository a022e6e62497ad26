/** The shape of the health and database charts, shared by the views and their packed wire form. */
import { z } from 'zod';
import { ZReadWindow } from './common';

/** The line charts of the health panels besides the two range charts, each an array of series. */
export const SERIES_KEYS = [
  'leaseholders',
  'cpu',
  'cpu_limit',
  'throttled',
  'mem',
  'mem_limit',
  'io_read',
  'io_write',
  // io.max read / write limits (bytes/s, summed over limited devices; null = unlimited).
  'io_read_limit',
  'io_write_limit',
] as const;
export type TSeriesKey = (typeof SERIES_KEYS)[number];

/** The database panels, each an array of series. */
export const DB_KEYS = [
  // Statements per second: select, insert, update, delete (summed over nodes).
  'statements',
  // Service latency p50 and p99 in ms (histogram_quantile over the nodes' summed bucket rates).
  'latency',
  // Transactions per second: commits, aborts.
  'transactions',
  // Open SQL connections per node.
  'connections',
  // Bytes: capacity, used, available (summed over stores and nodes).
  'capacity',
  // used / (used + available), 0..1.
  'capacity_used_ratio',
  // Per node.
  'live_bytes',
  // The process's CPU, normalised by cores (0..1), per node.
  'cpu',
  'rss',
  'replicas',
  'leaseholders',
] as const;
export type TDbKey = (typeof DB_KEYS)[number];

/** Object schema fields: an array of `item` under each key. */
const arraysOf = <K extends string, T extends z.ZodType>(keys: readonly K[], item: T) =>
  Object.fromEntries(keys.map((k) => [k, z.array(item)])) as Record<K, z.ZodArray<T>>;

/** The health charts with each range chart a `line` and each other chart an array of `series`. */
export const healthChartsOf = <L extends z.ZodType, S extends z.ZodType>(line: L, series: S) =>
  ZReadWindow.extend({
    /** Spacing of points: the push interval for raw data, else the rollup bucket. */
    step_ms: z.number(),
    ranges_underreplicated: line,
    ranges_unavailable: line,
    ...arraysOf(SERIES_KEYS, series),
  });

/** The SQL panels, which a tenant choice applies to (KV and process panels are the cluster's). */
export const DB_SQL_KEYS = [
  'statements',
  'latency',
  'transactions',
  'connections',
] as const satisfies readonly TDbKey[];

/** A CockroachDB tenant (virtual cluster) name, as its `tenant` metric label carries it. */
export const ZTenantName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/, 'a tenant name');

/**
 * The SQL panels' tenant choice: unset = every tenant summed (scrapes without the label too), `*` = each
 * tenant its own lines, a name = that tenant only.
 */
export const ZDbTenant = z.union([z.literal('*'), ZTenantName]);
export type TDbTenant = z.infer<typeof ZDbTenant>;

/** The database panels, each an array of `series`, and the tenants the SQL panels can be split by. */
export const dbChartsOf = <S extends z.ZodType>(series: S) =>
  z.object({
    from: z.number(),
    to: z.number(),
    step_ms: z.number(),
    /** The `tenant` labels of the window's SQL series (none before v25 or on a single-tenant cluster). */
    tenants: z.array(z.string()),
    ...arraysOf(DB_KEYS, series),
  });
