import type { TClickHouse } from '../client';
import { pickResolution, rollupBucketSql, rollupPoints, type TResolution } from './resolution';
import { assertRange, msParam, selectRowBinary } from './util';

type TSeriesSql = { raw: string; rollup: string };

/** Columns read as is from raw rows and as their bucket max, min or average in rollups. */
function rolled<K extends string>(agg: 'max' | 'min' | 'avg', cols: readonly K[]) {
  const rollup = (c: string) => (agg === 'avg' ? `avgMerge(${c}_avg)` : `${agg}(${c}_${agg})`);
  const entries = cols.map((c): [string, TSeriesSql] => [c, { raw: c, rollup: rollup(c) }]);
  return Object.fromEntries(entries) as Record<K, TSeriesSql>;
}

/**
 * Node metrics a chart may ask for: the SQL over raw rows and over a rollup bucket.
 * Trouble counts use the bucket max, gauges the bucket average, not_live the fraction of samples.
 */
export const NODE_SERIES_METRICS = {
  ...rolled('max', ['ranges_underreplicated', 'ranges_unavailable', 'uptime_s']),
  ...rolled('max', ['live_bytes', 'capacity', 'capacity_used']),
  ...rolled('min', ['capacity_available']),
  ...rolled('avg', ['replicas', 'replicas_leaders', 'replicas_leaseholders', 'ranges']),
  not_live: { raw: "toUInt8(liveness != 'LIVE')", rollup: 'sum(not_live) / sum(samples)' },
  /** 1 while the node is DEAD or DECOMMISSIONED (its counts are then old and leave cluster totals). */
  dead_or_decommissioned: {
    raw: "toUInt8(toString(liveness) IN ('DEAD', 'DECOMMISSIONED'))",
    rollup: "toUInt8(argMaxMerge(last_liveness) IN ('DEAD', 'DECOMMISSIONED'))",
  },
};
export type TNodeSeriesMetric = keyof typeof NODE_SERIES_METRICS;
export const NODE_SERIES_METRIC_NAMES = Object.keys(NODE_SERIES_METRICS) as TNodeSeriesMetric[];

export interface TNodeSeriesQuery {
  orgId: string;
  clusterId: string;
  nodeId?: number;
  /** [from, to) in epoch ms. */
  from: number;
  to: number;
  metrics: readonly TNodeSeriesMetric[];
  /** Forces a table; default pickResolution(from, to). */
  resolution?: TResolution;
  /** Rollups only: wider buckets (a multiple of the table's, see chartStepMs). */
  stepMs?: number;
}

/**
 * One node's series over a window, in columns: `t` (sample time or bucket start, epoch ms, ascending) and
 * one column per metric asked for (NaN: no value, e.g. an empty rollup bucket).
 */
export type TNodeCols = { node_id: number; t: number[] } & Partial<Record<TNodeSeriesMetric, number[]>>;

export interface TNodeSeries {
  resolution: TResolution;
  /** One block per node, by node id. */
  nodes: TNodeCols[];
}

/** Time series of node metrics, read from raw, 1 m or 1 h data by the window's span. */
export async function getNodeSeries(ch: TClickHouse, q: TNodeSeriesQuery): Promise<TNodeSeries> {
  assertRange(q.from, q.to);
  if (q.metrics.length === 0) throw new Error('metrics must name at least one metric');
  for (const m of q.metrics) {
    if (!Object.hasOwn(NODE_SERIES_METRICS, m)) {
      throw new Error(`unknown metric ${JSON.stringify(m)}; known: ${NODE_SERIES_METRIC_NAMES.join(', ')}`);
    }
  }
  const resolution = q.resolution ?? pickResolution(q.from, q.to);
  const params: Record<string, unknown> = {
    org_id: q.orgId,
    cluster_id: q.clusterId,
    from: q.from,
    to: q.to,
  };
  const nodeFilter = q.nodeId === undefined ? '' : 'AND node_id = {node_id:UInt32}';
  if (q.nodeId !== undefined) params.node_id = q.nodeId;
  // Typed for RowBinary: every value a Float64 (NULL: NaN).
  const cols = q.metrics.map(
    (m, i) =>
      `ifNull(toFloat64(${NODE_SERIES_METRICS[m][resolution === 'raw' ? 'raw' : 'rollup']}), nan) AS m${i}`,
  );
  let sql: string;
  if (resolution === 'raw') {
    sql = `SELECT toFloat64(node_id), toFloat64(toUnixTimestamp64Milli(ts)) AS t, ${cols.join(', ')}
           FROM node_status
           WHERE org_id = {org_id:String} AND cluster_id = {cluster_id:String} ${nodeFilter}
             AND ts >= ${msParam('from')} AND ts < ${msParam('to')}
           ORDER BY node_id, ts`;
  } else {
    const table = resolution === '1m' ? 'node_status_1m' : 'node_status_1h';
    const b = rollupBucketSql(resolution, q.stepMs);
    // Bucket starts in seconds (shorter text); scaled to ms below.
    sql = `SELECT toFloat64(node_id), toFloat64(toUnixTimestamp(${b.of('bucket')})) AS t, ${cols.join(', ')}
           FROM ${table}
           WHERE org_id = {org_id:String} AND cluster_id = {cluster_id:String} ${nodeFilter}
             AND bucket >= ${b.of(msParam('from'))} AND bucket < ${msParam('to')}
           GROUP BY node_id, t
           ORDER BY node_id, t`;
  }
  const rb = await selectRowBinary(ch, sql, params);
  const scale = resolution === 'raw' ? 1 : 1000;
  const out: TNodeCols[] = [];
  const cap = rollupPoints(resolution, q.from, q.to, q.stepMs);
  const col = (): number[] => (cap > 0 ? new Array<number>(cap) : []);
  let b: TNodeCols | null = null;
  let vals: number[][] = [];
  let n = 0; // points in b
  const trim = () => {
    if (b) for (const c of [b.t, ...vals]) c.length = n;
  };
  while (!rb.done) {
    const node_id = rb.f64();
    if (b === null || b.node_id !== node_id) {
      trim();
      const nb: TNodeCols = { node_id, t: col() };
      vals = q.metrics.map((m) => (nb[m] = col()));
      out.push((b = nb));
      n = 0;
    }
    b.t[n] = rb.f64() * scale;
    for (const v of vals) v[n] = rb.f64(); // an empty rollup bucket: 0 / 0 = NaN
    n++;
  }
  trim();
  return { resolution, nodes: out };
}
