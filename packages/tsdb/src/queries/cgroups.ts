import type { TClickHouse } from '../client';
import { pickResolution, rollupBucketSql, type TResolution } from './resolution';
import {
  assertRange,
  msParam,
  rbRows,
  rbSelectList,
  selectRowBinary,
  selectRows,
  type TRbColumns,
} from './util';

export interface TCgroupSeriesQuery {
  orgId: string;
  clusterId: string;
  host?: string;
  cgroup?: string;
  /** [from, to) in epoch ms. */
  from: number;
  to: number;
  resolution?: TResolution;
  /** Rollups only: wider buckets (a multiple of the table's, see chartStepMs). */
  stepMs?: number;
}

export interface TCgroupPoint {
  /** Sample time (raw) or bucket start (rollups), epoch ms. */
  ts: number;
  host: string;
  cgroup: string;
  node_id: number | null;
  /** CPU used, in cores (µs of CPU per µs of wall time); null for the first point or after a counter reset. */
  cpu_cores: number | null;
  /** cpu.max quota / period; null = unlimited. */
  cpu_limit_cores: number | null;
  /** Share of CFS periods that were throttled. */
  throttled_ratio: number | null;
  /** Seconds throttled per second. */
  throttled_s_per_s: number | null;
  /** Memory in use (raw) or the bucket max (rollups), bytes. */
  mem_current: number;
  mem_max: number | null;
  io_read_bps: number | null;
  io_write_bps: number | null;
  io_read_iops: number | null;
  io_write_iops: number | null;
  /**
   * io.max rbps / wbps: the sum of the per-device limits over the devices that have one; null = no
   * device is limited (rollups: the bucket's last reading). Always set by getCgroupSeries (optional
   * only so hand-built points in older tests stay valid).
   */
  io_read_bps_limit?: number | null;
  io_write_bps_limit?: number | null;
}

/** One earlier reading per series is fetched so the first point in the window has a rate. */
const LOOKBACK_MS: Record<TResolution, number> = { raw: 120_000, '1m': 180_000, '1h': 3 * 3_600_000 };

/** Sum of the per-device io.max values over the devices that have one; NULL when none does. */
const ioLimitSql = (col: string) =>
  `if(arrayExists(x -> isNotNull(x), ${col}), arraySum(arrayMap(x -> ifNull(x, 0), ${col})), NULL)`;

/**
 * The columns of a cgroup series read, described once (the SELECT list and the reader both come from
 * it): per-reading differences of the cumulative counters, computed in SQL over each (host, cgroup)
 * series in time order; a counter that went down (reset) gives NULL. `first` marks a series' first
 * row: only there are host and cgroup written (the rows are ordered by series).
 */
const DELTA_COLS = {
  first: ['first', 'f64'],
  host: ["if(first, host, '')", 'str'],
  cgroup: ["if(first, cgroup, '')", 'str'],
  node_id: ['node_id', 'f64'],
  t: ['t', 'f64'],
  mem: ['mem', 'f64'],
  mem_max: ['mem_max', 'f64n'],
  quota: ['quota', 'f64n'],
  period: ['period', 'f64'],
  dt_ms: ['if(first, NULL, read_t - p_read)', 'f64n'],
  dcu: ['if(first OR cu < p_cu, NULL, cu - p_cu)', 'f64n'],
  dnp: ['if(first, NULL, toInt64(np) - toInt64(p_np))', 'f64n'],
  dnt: ['if(first, NULL, toInt64(nt) - toInt64(p_nt))', 'f64n'],
  dtu: ['if(first OR tu < p_tu, NULL, tu - p_tu)', 'f64n'],
  drb: ['if(first OR rb < p_rb, NULL, rb - p_rb)', 'f64n'],
  dwb: ['if(first OR wb < p_wb, NULL, wb - p_wb)', 'f64n'],
  dri: ['if(first OR ri < p_ri, NULL, ri - p_ri)', 'f64n'],
  dwi: ['if(first OR wi < p_wi, NULL, wi - p_wi)', 'f64n'],
  rl: ['rl', 'f64n'],
  wl: ['wl', 'f64n'],
} as const satisfies TRbColumns;

const DELTAS_SQL = (inner: string) => `
  SELECT ${rbSelectList(DELTA_COLS)}
  FROM (
    SELECT *, p_read = 0 AS first,
           lagInFrame(read_t, 1, toInt64(0)) OVER w AS p_read,
           lagInFrame(cu) OVER w AS p_cu, lagInFrame(np) OVER w AS p_np, lagInFrame(nt) OVER w AS p_nt,
           lagInFrame(tu) OVER w AS p_tu, lagInFrame(rb) OVER w AS p_rb, lagInFrame(wb) OVER w AS p_wb,
           lagInFrame(ri) OVER w AS p_ri, lagInFrame(wi) OVER w AS p_wi
    FROM (${inner})
    WINDOW w AS (PARTITION BY host, cgroup ORDER BY t ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
  )
  ORDER BY host, cgroup, t`;

/** cgroup CPU, throttling, memory and IO over a window; rates come from consecutive counter readings. */
export async function getCgroupSeries(ch: TClickHouse, q: TCgroupSeriesQuery): Promise<TCgroupPoint[]> {
  assertRange(q.from, q.to);
  const resolution = q.resolution ?? pickResolution(q.from, q.to);
  const params: Record<string, unknown> = {
    org_id: q.orgId,
    cluster_id: q.clusterId,
    // At least one earlier bucket of the (possibly widened) step, for the first point's rate.
    from: q.from - Math.max(LOOKBACK_MS[resolution], resolution === 'raw' ? 0 : 2 * (q.stepMs ?? 0)),
    to: q.to,
  };
  let filter = '';
  if (q.host !== undefined) {
    filter += ' AND host = {host:String}';
    params.host = q.host;
  }
  if (q.cgroup !== undefined) {
    filter += ' AND cgroup = {cgroup:String}';
    params.cgroup = q.cgroup;
  }
  const where = `org_id = {org_id:String} AND cluster_id = {cluster_id:String}${filter}`;
  let sql: string;
  if (resolution === 'raw') {
    sql = `SELECT host, cgroup, node_id, toUnixTimestamp64Milli(ts) AS t, t AS read_t,
                  cpu_usage_usec AS cu, cpu_nr_periods AS np, cpu_nr_throttled AS nt, cpu_throttled_usec AS tu,
                  cpu_quota_usec AS quota, cpu_period_usec AS period, mem_current AS mem, mem_max,
                  arraySum(io_rbytes) AS rb, arraySum(io_wbytes) AS wb, arraySum(io_rios) AS ri, arraySum(io_wios) AS wi,
                  ${ioLimitSql('io_rbps_max')} AS rl, ${ioLimitSql('io_wbps_max')} AS wl
           FROM cgroup_usage
           WHERE ${where} AND ts >= ${msParam('from')} AND ts < ${msParam('to')}`;
  } else {
    const table = resolution === '1m' ? 'cgroup_usage_1m' : 'cgroup_usage_1h';
    const b = rollupBucketSql(resolution, q.stepMs);
    sql = `SELECT host, cgroup, max(node_id_max) AS node_id, toUnixTimestamp(${b.of('bucket')}) AS t,
                  toUnixTimestamp64Milli(max(last_ts)) AS read_t,
                  max(cpu_usage_usec_max) AS cu, max(cpu_nr_periods_max) AS np, max(cpu_nr_throttled_max) AS nt,
                  max(cpu_throttled_usec_max) AS tu, max(mem_current_max) AS mem,
                  max(io_rbytes_max) AS rb, max(io_wbytes_max) AS wb, max(io_rios_max) AS ri, max(io_wios_max) AS wi,
                  argMax(tuple(cpu_quota_usec_last, cpu_period_usec_last, mem_max_last, io_rbps_limit, io_wbps_limit),
                         last_ts) AS lims,
                  lims.1 AS quota, lims.2 AS period, lims.3 AS mem_max, lims.4 AS rl, lims.5 AS wl
           FROM ${table}
           WHERE ${where} AND bucket >= ${b.of(msParam('from'))} AND bucket < ${msParam('to')}
           GROUP BY host, cgroup, t`;
  }
  const r = rbRows(await selectRowBinary(ch, DELTAS_SQL(sql), params), DELTA_COLS);
  const { num: v, str: s, at } = r;
  const orNull = (x: number) => (Number.isNaN(x) ? null : x);
  // NaN (NULL: first reading, counter reset) fails every comparison: no rate.
  const rate = (d: number, dt: number, scale: number) => (dt > 0 && d >= -Infinity ? d / dt / scale : null);
  // Rollup bucket starts come in seconds (shorter to sort and send).
  const scale = resolution === 'raw' ? 1 : 1000;
  const out: TCgroupPoint[] = [];
  let host = '';
  let cgroup = '';
  while (r.next()) {
    if (v[at.first] === 1) {
      host = s[at.host];
      cgroup = s[at.cgroup];
    }
    const ts = v[at.t] * scale;
    if (ts < q.from) continue; // lookback reading: only there for the next point's rates
    const dtMs = v[at.dt_ms];
    const dt = Number.isNaN(dtMs) ? 0 : dtMs / 1000;
    const dnp = v[at.dnp];
    const dnt = v[at.dnt];
    const quota = orNull(v[at.quota]);
    const period = v[at.period];
    out.push({
      ts,
      host,
      cgroup,
      node_id: v[at.node_id] === 0 ? null : v[at.node_id],
      cpu_cores: rate(v[at.dcu], dt, 1e6),
      cpu_limit_cores: quota === null || period <= 0 ? null : quota / period,
      throttled_ratio: dnp > 0 && dnt >= 0 ? dnt / dnp : null,
      throttled_s_per_s: rate(v[at.dtu], dt, 1e6),
      mem_current: v[at.mem],
      mem_max: orNull(v[at.mem_max]),
      io_read_bps: rate(v[at.drb], dt, 1),
      io_write_bps: rate(v[at.dwb], dt, 1),
      io_read_iops: rate(v[at.dri], dt, 1),
      io_write_iops: rate(v[at.dwi], dt, 1),
      io_read_bps_limit: orNull(v[at.rl]),
      io_write_bps_limit: orNull(v[at.wl]),
    });
  }
  return out;
}

/** The fields of a cgroup_latest reading (migration 0006's `last2` tuple), in tuple order. */
const LAST2 = [
  'neg_ts', 'node_id', 'cpu_usage_usec', 'cpu_nr_periods', 'cpu_nr_throttled', 'cpu_quota_usec',
  'cpu_period_usec', 'mem_current', 'mem_max', 'io_rbytes', 'io_wbytes',
] as const; // prettier-ignore
type TReading = Record<(typeof LAST2)[number], number | null>;
const toReading = (t: unknown[]) =>
  Object.fromEntries(LAST2.map((k, i) => [k, t[i] == null ? null : Number(t[i])])) as TReading;

/** What a cgroup_latest row (`groupArraySortedMerge(2)(last2)`: newest first) says about now. */
export type TLatestCgroup = Omit<TCgroupPoint, 'host' | 'cgroup' | 'io_read_iops' | 'io_write_iops'>;

/**
 * The newest reading of a `cgroup_latest` row, with rates from the reading before it (null when there
 * is none, or a counter went down). Shared by the node table and the alert evaluator.
 */
export function toLatestCgroup(r: readonly unknown[][]): TLatestCgroup {
  const [cur, prev] = r.map(toReading);
  const ts = -(cur.neg_ts as number);
  const dt = prev ? (ts + (prev.neg_ts as number)) / 1000 : 0;
  const d = (k: keyof TReading) => {
    if (!prev || dt <= 0) return null;
    const v = (cur[k] as number) - (prev[k] as number);
    return v < 0 ? null : v;
  };
  const rate = (k: keyof TReading, scale = 1) => {
    const v = d(k);
    return v === null ? null : v / dt / scale;
  };
  const dnp = d('cpu_nr_periods');
  const dnt = d('cpu_nr_throttled');
  const quota = cur.cpu_quota_usec;
  const period = cur.cpu_period_usec as number;
  return {
    ts,
    node_id: cur.node_id === 0 ? null : cur.node_id,
    cpu_cores: rate('cpu_usage_usec', 1e6),
    cpu_limit_cores: quota === null || period <= 0 ? null : quota / period,
    throttled_ratio: dnp !== null && dnt !== null && dnp > 0 ? dnt / dnp : null,
    throttled_s_per_s: null,
    mem_current: cur.mem_current as number,
    mem_max: cur.mem_max,
    io_read_bps: rate('io_rbytes'),
    io_write_bps: rate('io_wbytes'),
  };
}

/** Latest reading of every cgroup of a cluster (from cgroup_latest), rates from its previous reading. */
export async function getLatestCgroups(
  ch: TClickHouse,
  orgId: string,
  clusterId: string,
): Promise<TCgroupPoint[]> {
  const rows = await selectRows<{ host: string; cgroup: string; r: unknown[][] }>(
    ch,
    `SELECT host, cgroup, groupArraySortedMerge(2)(last2) AS r
     FROM cgroup_latest
     WHERE org_id = {org_id:String} AND cluster_id = {cluster_id:String}
     GROUP BY host, cgroup
     ORDER BY host, cgroup`,
    { org_id: orgId, cluster_id: clusterId },
  );
  return rows.map(({ host, cgroup, r }) => {
    const x = toLatestCgroup(r);
    return { ...x, host, cgroup, io_read_iops: null, io_write_iops: null };
  });
}
