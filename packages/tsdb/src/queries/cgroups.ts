import type { TClickHouse } from '../client';
import { pickResolution, rollupBucketSql, type TResolution } from './resolution';
import { assertRange, msParam, selectRowBinary, selectRows } from './util';

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
 * Per-reading differences of the cumulative counters, computed in SQL over each (host, cgroup)
 * series in time order; a counter that went down (reset) gives NULL. `first` marks a series'
 * first row: only there are host and cgroup written (the rows are ordered by series).
 */
const F = (x: string) => `toFloat64(${x})`;
const N = (x: string) => `CAST(${x} AS Nullable(Float64))`;
const DELTAS_SQL = (inner: string) => `
  SELECT toUInt8(first), toString(if(first, host, '')), toString(if(first, cgroup, '')),
         ${F('node_id')}, ${F('t')}, ${F('mem')}, ${N('mem_max')}, ${N('quota')}, ${F('period')},
         ${N('if(first, NULL, read_t - p_read)')},
         ${N('if(first OR cu < p_cu, NULL, cu - p_cu)')},
         ${N('if(first, NULL, toInt64(np) - toInt64(p_np))')},
         ${N('if(first, NULL, toInt64(nt) - toInt64(p_nt))')},
         ${N('if(first OR tu < p_tu, NULL, tu - p_tu)')},
         ${N('if(first OR rb < p_rb, NULL, rb - p_rb)')},
         ${N('if(first OR wb < p_wb, NULL, wb - p_wb)')},
         ${N('if(first OR ri < p_ri, NULL, ri - p_ri)')},
         ${N('if(first OR wi < p_wi, NULL, wi - p_wi)')},
         ${N('rl')}, ${N('wl')}
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
  let inner: string;
  if (resolution === 'raw') {
    inner = `SELECT host, cgroup, node_id, toUnixTimestamp64Milli(ts) AS t, t AS read_t,
                  cpu_usage_usec AS cu, cpu_nr_periods AS np, cpu_nr_throttled AS nt, cpu_throttled_usec AS tu,
                  cpu_quota_usec AS quota, cpu_period_usec AS period, mem_current AS mem, mem_max,
                  arraySum(io_rbytes) AS rb, arraySum(io_wbytes) AS wb, arraySum(io_rios) AS ri, arraySum(io_wios) AS wi,
                  ${ioLimitSql('io_rbps_max')} AS rl, ${ioLimitSql('io_wbps_max')} AS wl
           FROM cgroup_usage
           WHERE ${where} AND ts >= ${msParam('from')} AND ts < ${msParam('to')}`;
  } else {
    const table = resolution === '1m' ? 'cgroup_usage_1m' : 'cgroup_usage_1h';
    const b = rollupBucketSql(resolution, q.stepMs);
    // Bucket starts in seconds (shorter text); scaled to ms below.
    inner = `SELECT host, cgroup, max(node_id_max) AS node_id, toUnixTimestamp(${b.of('bucket')}) AS t,
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
  const rb = await selectRowBinary(ch, DELTAS_SQL(inner), params);
  const scale = resolution === 'raw' ? 1 : 1000;
  const out: TCgroupPoint[] = [];
  let host = '';
  let cgroup = '';
  while (!rb.done) {
    const first = rb.u8() === 1;
    const h = rb.str();
    const c = rb.str();
    if (first) {
      host = h;
      cgroup = c;
    }
    const nodeId = rb.f64();
    const ts = rb.f64() * scale;
    const mem = rb.f64();
    const memMax = rb.f64OrNull();
    const quota = rb.f64OrNull();
    const period = rb.f64();
    // Differences to the previous reading (null: none, or the counter was reset), then rates.
    const dtMs = rb.f64OrNull();
    const dt = dtMs === null ? 0 : dtMs / 1000;
    const dcu = rb.f64OrNull();
    const dnp = rb.f64OrNull();
    const dnt = rb.f64OrNull();
    const dtu = rb.f64OrNull();
    const drb = rb.f64OrNull();
    const dwb = rb.f64OrNull();
    const dri = rb.f64OrNull();
    const dwi = rb.f64OrNull();
    const rl = rb.f64OrNull();
    const wl = rb.f64OrNull();
    if (ts < q.from) continue; // lookback reading: only there for the next point's rates
    const ok = dt > 0;
    out.push({
      ts,
      host,
      cgroup,
      node_id: nodeId === 0 ? null : nodeId,
      cpu_cores: ok && dcu !== null ? dcu / dt / 1e6 : null,
      cpu_limit_cores: quota === null || period <= 0 ? null : quota / period,
      throttled_ratio: dnp !== null && dnt !== null && dnp > 0 && dnt >= 0 ? dnt / dnp : null,
      throttled_s_per_s: ok && dtu !== null ? dtu / dt / 1e6 : null,
      mem_current: mem,
      mem_max: memMax,
      io_read_bps: ok && drb !== null ? drb / dt : null,
      io_write_bps: ok && dwb !== null ? dwb / dt : null,
      io_read_iops: ok && dri !== null ? dri / dt : null,
      io_write_iops: ok && dwi !== null ? dwi / dt : null,
      io_read_bps_limit: rl,
      io_write_bps_limit: wl,
    });
  }
  return out;
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
    // Tuple: (-ts, node_id, cpu_usage, periods, throttled, quota, period, mem, mem_max, read bytes, write bytes).
    const [cur, prev] = r.map((t) => t.map((x) => (x == null ? null : Number(x))));
    const ts = -(cur[0] as number);
    const dt = prev ? (ts + (prev[0] as number)) / 1000 : 0;
    const d = (i: number) => {
      if (!prev || dt <= 0) return null;
      const v = (cur[i] as number) - (prev[i] as number);
      return v < 0 ? null : v;
    };
    const rate = (i: number, scale = 1) => {
      const v = d(i);
      return v === null ? null : v / dt / scale;
    };
    const dnp = d(3);
    const dnt = d(4);
    const quota = cur[5];
    const period = cur[6] as number;
    return {
      ts,
      host,
      cgroup,
      node_id: cur[1] === 0 ? null : (cur[1] as number),
      cpu_cores: rate(2, 1e6),
      cpu_limit_cores: quota === null || period <= 0 ? null : quota / period,
      throttled_ratio: dnp !== null && dnt !== null && dnp > 0 ? dnt / dnp : null,
      throttled_s_per_s: null,
      mem_current: cur[7] as number,
      mem_max: cur[8],
      io_read_bps: rate(9),
      io_write_bps: rate(10),
      io_read_iops: null,
      io_write_iops: null,
    };
  });
}
