import type { TClickHouse } from '../client';
import { bucketMs, chartStepMs, DEFAULT_MAX_POINTS, pickResolution, type TResolution } from './resolution';
import { assertRange, msParam, selectRowBinary, selectRows, type TParams } from './util';

/**
 * Prometheus series (table `metrics` and its 1m/1h rollups) as chart points. Counters are stored raw;
 * rates and histogram quantiles are computed here, in SQL, with PromQL's meaning:
 * - a counter's increase between two readings is their difference, or the new reading itself when
 *   it went down (a reset: the process restarted and counted from 0);
 * - `rate` is the increase over the elapsed time; a step's rate is its increases over its seconds;
 * - `histogram_quantile(q, sum by (le) (rate(x_bucket)))`: the `le` buckets' rates, summed over the
 *   selected series, interpolated linearly inside the bucket where the rank q × total falls.
 * On the rollups (migration 0007) a bucket's increase is the greatest of three lower bounds: the sum
 * of its positive steps (deltaSumTimestamp), last - first, and (max - first) + last when the counter
 * ended below where it started; plus the step from the previous bucket's last reading (PromQL's
 * reset rule). So a 30-day chart never reads raw rows; a reset inside a rollup bucket loses only the
 * counts between the restart and the next reading.
 */

export interface TMetricQuery {
  orgId: string;
  clusterId: string;
  /** Only this node's series. */
  nodeId?: number;
  /** [from, to) in epoch ms. */
  from: number;
  to: number;
  resolution?: TResolution;
  /** Width of a point, ms; default: metricStepMs. A multiple of the rollup's bucket. */
  stepMs?: number;
  /** One point for the whole window (at `from`), e.g. a benchmark run's; stepMs is ignored. */
  whole?: boolean;
  /**
   * Only the series of these tenants (the `tenant` label of v25+ scrapes), one point per tenant: each
   * point carries its `tenant`. Unset: every series, tenants summed (scrapes without the label too).
   */
  tenants?: readonly string[];
}

export interface TMetricPoint {
  /** Start of the step, epoch ms. */
  ts: number;
  name: string;
  /** 0 = a target that is not a database node. */
  node_id: number;
  value: number;
  /** Set when the query asked for `tenants`. */
  tenant?: string;
}

export interface TQuantilePoint {
  ts: number;
  /** Set when the query asked for `tenants`. */
  tenant?: string;
  /** null when no observation fell in the step. */
  values: (number | null)[];
}

const RAW_STEPS_S = [10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];

/**
 * Width of a metric point: on the rollups the chart's step (chartStepMs); on raw rows the smallest
 * nice width of at least `minMs` (the scrape interval) that keeps a series at or under `maxPoints`.
 * Raw readings are bucketed too, so that series scraped at different moments line up.
 */
export function metricStepMs(
  r: TResolution,
  from: number,
  to: number,
  maxPoints: number = DEFAULT_MAX_POINTS,
  minMs = 10_000,
): number {
  if (r !== 'raw') return chartStepMs(r, from, to, maxPoints);
  const s = RAW_STEPS_S.find((x) => x * 1000 >= minMs && (to - from) / (x * 1000) <= maxPoints);
  return (s ?? RAW_STEPS_S[RAW_STEPS_S.length - 1]) * 1000;
}

interface TPrepared {
  resolution: TResolution;
  step: number;
  params: TParams;
  where: string;
  /** SQL of the step start (epoch ms) of an epoch-ms time; before {start} for lookback readings. */
  sb(t: string): string;
  /** SQL of a row's tenant: the label when the query is per tenant, else one constant (summed). */
  tenant: string;
}

/** Tenants one query may split by: a panel draws each as its own lines. */
export const MAX_TENANTS = 10;

function prepare(q: TMetricQuery, names: readonly string[]): TPrepared {
  assertRange(q.from, q.to);
  const resolution = q.resolution ?? pickResolution(q.from, q.to);
  const whole = q.whole === true;
  const step = whole ? q.to - q.from : (q.stepMs ?? metricStepMs(resolution, q.from, q.to));
  const base = bucketMs(resolution);
  if (!whole && (!Number.isSafeInteger(step) || step <= 0 || (base > 0 && step % base !== 0)))
    throw new Error(`stepMs ${step} must be a positive multiple of ${base || 1} ms`);
  const start = whole ? q.from : Math.floor(q.from / step) * step;
  // One earlier reading per series, so that the first step in the window has a rate.
  const lookback = Math.max(whole ? 0 : step, resolution === 'raw' ? 120_000 : 3 * base);
  const params: TParams = {
    org_id: q.orgId,
    cluster_id: q.clusterId,
    names: [...names],
    from: start - lookback,
    start,
    to: q.to,
    step,
  };
  const sb = whole
    ? (t: string) => `if(${t} >= {start:Int64}, {start:Int64}, toInt64(0))`
    : (t: string) => `intDiv(${t}, {step:Int64}) * {step:Int64}`;
  let where =
    'org_id = {org_id:String} AND cluster_id = {cluster_id:String} AND name IN {names:Array(String)}';
  if (q.nodeId !== undefined) {
    where += ' AND node_id = {node_id:UInt32}';
    params.node_id = q.nodeId;
  }
  if (q.tenants !== undefined) {
    if (q.tenants.length > MAX_TENANTS) throw new Error(`at most ${MAX_TENANTS} tenants per query`);
    where += " AND labels['tenant'] IN {tenants:Array(String)}";
    params.tenants = [...q.tenants];
  }
  return { resolution, step, params, where, sb, tenant: q.tenants !== undefined ? "labels['tenant']" : "''" };
}

const table = (r: Exclude<TResolution, 'raw'>) => (r === '1m' ? 'metrics_1m' : 'metrics_1h');

/**
 * Per series and step: the increase and the seconds it spans (`inc`, `secs`), with `name`,
 * `node_id`, `labels` and the step start `sb` (epoch ms).
 */
function increasesSql(p: TPrepared): string {
  if (p.resolution === 'raw') {
    return `
      SELECT name, node_id, labels, ${p.sb('t')} AS sb,
             sumIf(if(value >= pv, value - pv, value), pt > 0) AS inc, sumIf(t - pt, pt > 0) / 1000 AS secs
      FROM (
        SELECT name, node_id, host, labels, toUnixTimestamp64Milli(ts) AS t, value,
               lagInFrame(t, 1, toInt64(0)) OVER w AS pt, lagInFrame(value) OVER w AS pv
        FROM metrics
        WHERE ${p.where} AND ts >= ${msParam('from')} AND ts < ${msParam('to')}
        WINDOW w AS (PARTITION BY name, node_id, host, labels ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
      )
      GROUP BY name, node_id, host, labels, sb`;
  }
  // Per rollup bucket: the increase from the previous bucket's last reading to this one's.
  return `
    SELECT name, node_id, labels, ${p.sb('toInt64(toUnixTimestamp(bucket)) * 1000')} AS sb,
           sum(greatest(d, l - f, if(l < f, mx - f + l, 0)) + if(plt > 0, if(f >= pl, f - pl, f), 0)) AS inc,
           sum(if(plt > 0, lt - plt, lt - ft)) / 1000 AS secs
    FROM (
      SELECT *, lagInFrame(lt, 1, toInt64(0)) OVER w AS plt, lagInFrame(l) OVER w AS pl
      FROM (
        SELECT name, node_id, host, labels, bucket, argMinMerge(first) AS f, argMaxMerge(last) AS l, max(max) AS mx,
               deltaSumTimestampMerge(increase) AS d,
               toUnixTimestamp64Milli(min(first_ts)) AS ft, toUnixTimestamp64Milli(max(last_ts)) AS lt
        FROM ${table(p.resolution)}
        WHERE ${p.where} AND bucket >= toStartOfInterval(${msParam('from')}, INTERVAL ${bucketMs(p.resolution) / 1000} SECOND)
          AND bucket < ${msParam('to')}
        GROUP BY name, node_id, host, labels, bucket
      )
      WINDOW w AS (PARTITION BY name, node_id, host, labels ORDER BY bucket ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
    )
    GROUP BY name, node_id, host, labels, sb`;
}

/**
 * Whether the cluster has any metric reading in the window at its resolution: one primary-key probe, so a
 * cluster without the metrics input skips the panels' queries (each costs tens of ms to plan, even empty).
 */
export async function hasMetrics(
  ch: TClickHouse,
  q: Pick<TMetricQuery, 'orgId' | 'clusterId' | 'from' | 'to' | 'resolution'>,
): Promise<boolean> {
  const r = q.resolution ?? pickResolution(q.from, q.to);
  const [table, col] = r === 'raw' ? ['metrics', 'ts'] : [`metrics_${r}`, 'bucket'];
  const rows = await selectRows(
    ch,
    `SELECT 1 AS x FROM ${table}
     WHERE org_id = {org_id:String} AND cluster_id = {cluster_id:String}
       AND ${col} >= ${msParam('from')} AND ${col} < ${msParam('to')}
     LIMIT 1`,
    // A rollup bucket that starts before the window may hold readings inside it.
    { org_id: q.orgId, cluster_id: q.clusterId, from: q.from - bucketMs(r), to: q.to },
  );
  return rows.length > 0;
}

/** Runs a RowBinary SELECT of (ts, name, node_id, value, tenant) rows; the tenant is kept when `split`. */
async function readMetricPoints(
  ch: TClickHouse,
  sql: string,
  params: TParams,
  split: boolean,
): Promise<TMetricPoint[]> {
  const rb = await selectRowBinary(ch, sql, params);
  const out: TMetricPoint[] = [];
  while (!rb.done) {
    const p: TMetricPoint = { ts: rb.f64(), name: rb.str(), node_id: rb.f64(), value: rb.f64() };
    const tenant = rb.str();
    if (split) p.tenant = tenant;
    out.push(p);
  }
  return out;
}

/**
 * The tenants (`tenant` label values) of the cluster's SQL statement counters in the window, sorted,
 * at most MAX_TENANTS: none for scrapes without the label (before v25, or a single-tenant cluster).
 */
export async function getMetricTenants(
  ch: TClickHouse,
  q: Pick<TMetricQuery, 'orgId' | 'clusterId' | 'nodeId' | 'from' | 'to' | 'resolution'> & {
    names: readonly string[];
  },
): Promise<string[]> {
  assertRange(q.from, q.to);
  const r = q.resolution ?? pickResolution(q.from, q.to);
  const [table, col] = r === 'raw' ? ['metrics', 'ts'] : [`metrics_${r}`, 'bucket'];
  const params: TParams = {
    org_id: q.orgId,
    cluster_id: q.clusterId,
    names: [...q.names],
    from: q.from - bucketMs(r),
    to: q.to,
    limit: MAX_TENANTS,
  };
  let node = '';
  if (q.nodeId !== undefined) {
    node = ' AND node_id = {node_id:UInt32}';
    params.node_id = q.nodeId;
  }
  const rows = await selectRows<{ tenant: string }>(
    ch,
    `SELECT DISTINCT labels['tenant'] AS tenant FROM ${table}
     WHERE org_id = {org_id:String} AND cluster_id = {cluster_id:String} AND name IN {names:Array(String)}${node}
       AND ${col} >= ${msParam('from')} AND ${col} < ${msParam('to')} AND tenant != ''
     ORDER BY tenant
     LIMIT {limit:UInt32}`,
    params,
  );
  return rows.map((x) => x.tenant);
}

/**
 * Per-second rates of counters, per step, name and node (summed over the node's label sets, e.g.
 * stores). A step without two readings of a series has no point for it.
 */
export async function getCounterRates(
  ch: TClickHouse,
  q: TMetricQuery & { names: readonly string[] },
): Promise<TMetricPoint[]> {
  const p = prepare(q, q.names);
  return readMetricPoints(
    ch,
    `SELECT toFloat64(sb), toString(name), toFloat64(node_id), toFloat64(sum(inc / secs)), ${p.tenant} AS tenant
     FROM (${increasesSql(p)})
     WHERE secs > 0 AND sb >= {start:Int64}
     GROUP BY sb, name, node_id, tenant
     ORDER BY tenant, name, node_id, sb`,
    p.params,
    q.tenants !== undefined,
  );
}

/**
 * Gauges per step, name and node: each series' mean over the step, summed over the node's label
 * sets (stores).
 */
export async function getGaugeSeries(
  ch: TClickHouse,
  q: TMetricQuery & { names: readonly string[] },
): Promise<TMetricPoint[]> {
  const p = prepare(q, q.names);
  const inner =
    p.resolution === 'raw'
      ? `SELECT name, node_id, host, labels, ${p.sb('toUnixTimestamp64Milli(ts)')} AS sb,
                avg(value) AS v
         FROM metrics
         WHERE ${p.where} AND ts >= fromUnixTimestamp64Milli({start:Int64}, 'UTC') AND ts < ${msParam('to')}
         GROUP BY name, node_id, host, labels, sb`
      : `SELECT name, node_id, host, labels,
                ${p.sb('toInt64(toUnixTimestamp(bucket)) * 1000')} AS sb,
                sum(sum) / sum(samples) AS v
         FROM ${table(p.resolution)}
         WHERE ${p.where} AND bucket >= fromUnixTimestamp64Milli({start:Int64}, 'UTC') AND bucket < ${msParam('to')}
         GROUP BY name, node_id, host, labels, sb`;
  return readMetricPoints(
    ch,
    `SELECT toFloat64(sb), toString(name), toFloat64(node_id), toFloat64(sum(v)), ${p.tenant} AS tenant
     FROM (${inner})
     GROUP BY sb, name, node_id, tenant
     ORDER BY tenant, name, node_id, sb`,
    p.params,
    q.tenants !== undefined,
  );
}

/**
 * SQL of histogram_quantile(q, ·) over `les` (ascending upper bounds, the last +Inf) and `cum`
 * (cumulative rates): the rank q × total is found in the first bucket whose count reaches it and
 * interpolated linearly between that bucket's bounds (0 below the first); a rank in the +Inf
 * bucket answers the highest finite bound. Counts are made monotonic first, as Prometheus does.
 */
const quantileSql = (q: string) => {
  const rank = `${q} * cum[-1]`;
  const i = `arrayFirstIndex(c -> c >= ${rank}, cum)`;
  const lo = `if(${i} = 1, 0., les[${i} - 1])`;
  const below = `if(${i} = 1, 0., cum[${i} - 1])`;
  return `if(length(les) < 2 OR cum[-1] <= 0 OR NOT isInfinite(les[-1]), NULL,
    if(${i} = length(les), les[-2],
      ${lo} + (les[${i}] - ${lo}) * (${rank} - ${below}) / nullIf(cum[${i}] - ${below}, 0)))`;
};

/**
 * Quantiles of a Prometheus histogram family (`<family>_bucket{le}`) per step, over the selected
 * series (all nodes, or q.nodeId): histogram_quantile(q, sum by (le) (rate(<family>_bucket))).
 * Values are in the family's unit (CockroachDB latencies: nanoseconds).
 */
export async function getHistogramQuantiles(
  ch: TClickHouse,
  q: TMetricQuery & { family: string; quantiles: readonly number[] },
): Promise<TQuantilePoint[]> {
  for (const x of q.quantiles)
    if (!(x >= 0 && x <= 1)) throw new Error(`quantile must be within [0, 1], got ${x}`);
  if (q.quantiles.length === 0) return [];
  const p = prepare(q, [`${q.family}_bucket`]);
  const cols = q.quantiles.map((x, i) => `toNullable(toFloat64(${quantileSql(`{q${i}:Float64}`)}))`);
  q.quantiles.forEach((x, i) => (p.params[`q${i}`] = x));
  const rb = await selectRowBinary(
    ch,
    `SELECT toFloat64(sb), ${cols.join(', ')}, tenant
     FROM (
       SELECT sb, tenant, arraySort(x -> x.1, groupArray((le, r))) AS pairs,
              arrayMap(x -> x.1, pairs) AS les,
              arrayMap((x, i) -> arrayMax(arraySlice(arrayMap(y -> y.2, pairs), 1, i)), pairs, arrayEnumerate(pairs)) AS cum
       FROM (
         SELECT sb, ${p.tenant} AS tenant, assumeNotNull(toFloat64OrNull(labels['le'])) AS le, sum(inc / secs) AS r
         FROM (${increasesSql(p)})
         WHERE secs > 0 AND sb >= {start:Int64} AND isNotNull(toFloat64OrNull(labels['le']))
         GROUP BY sb, tenant, le
       )
       GROUP BY sb, tenant
     )
     ORDER BY tenant, sb`,
    p.params,
  );
  const out: TQuantilePoint[] = [];
  const split = q.tenants !== undefined;
  while (!rb.done) {
    const p: TQuantilePoint = { ts: rb.f64(), values: q.quantiles.map(() => rb.f64OrNull()) };
    const tenant = rb.str();
    if (split) p.tenant = tenant;
    out.push(p);
  }
  return out;
}
