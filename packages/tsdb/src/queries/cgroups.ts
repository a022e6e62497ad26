import type { TClickHouse } from '../client';
import { pickResolution, type TResolution } from './resolution';
import { assertRange, msParam, selectRows, toNum, toNumOrNull } from './util';

export interface TCgroupSeriesQuery {
  orgId: string;
  clusterId: string;
  host?: string;
  cgroup?: string;
  /** [from, to) in epoch ms. */
  from: number;
  to: number;
  resolution?: TResolution;
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
}

interface TCounterRow {
  host: string;
  cgroup: string;
  node_id: number;
  ts: number;
  /** Time of the counter reading (last sample of a bucket for rollups). */
  read_ts: number;
  cu: number;
  np: number;
  nt: number;
  tu: number;
  quota: number | null;
  period: number;
  mem: number;
  mem_max: number | null;
  rb: number;
  wb: number;
  ri: number;
  wi: number;
}

/** One earlier reading per series is fetched so the first point in the window has a rate. */
const LOOKBACK_MS: Record<TResolution, number> = { raw: 120_000, '1m': 180_000, '1h': 3 * 3_600_000 };

/** cgroup CPU, throttling, memory and IO over a window; rates come from consecutive counter readings. */
export async function getCgroupSeries(ch: TClickHouse, q: TCgroupSeriesQuery): Promise<TCgroupPoint[]> {
  assertRange(q.from, q.to);
  const resolution = q.resolution ?? pickResolution(q.from, q.to);
  const params: Record<string, unknown> = {
    org_id: q.orgId,
    cluster_id: q.clusterId,
    from: q.from - LOOKBACK_MS[resolution],
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
  let sql: string;
  if (resolution === 'raw') {
    sql = `SELECT host, cgroup, node_id, toUnixTimestamp64Milli(ts) AS t, toUnixTimestamp64Milli(ts) AS read_t,
                  cpu_usage_usec AS cu, cpu_nr_periods AS np, cpu_nr_throttled AS nt, cpu_throttled_usec AS tu,
                  cpu_quota_usec AS quota, cpu_period_usec AS period, mem_current AS mem, mem_max,
                  arraySum(io_rbytes) AS rb, arraySum(io_wbytes) AS wb, arraySum(io_rios) AS ri, arraySum(io_wios) AS wi
           FROM cgroup_usage
           WHERE org_id = {org_id:String} AND cluster_id = {cluster_id:String}${filter}
             AND ts >= ${msParam('from')} AND ts < ${msParam('to')}
           ORDER BY host, cgroup, ts`;
  } else {
    const table = resolution === '1m' ? 'cgroup_usage_1m' : 'cgroup_usage_1h';
    const start = resolution === '1m' ? 'toStartOfMinute' : 'toStartOfHour';
    sql = `SELECT host, cgroup, max(node_id_max) AS node_id, toUnixTimestamp(bucket) * 1000 AS t,
                  toUnixTimestamp64Milli(max(last_ts)) AS read_t,
                  max(cpu_usage_usec_max) AS cu, max(cpu_nr_periods_max) AS np, max(cpu_nr_throttled_max) AS nt,
                  max(cpu_throttled_usec_max) AS tu, anyLast(cpu_quota_usec_last) AS quota,
                  anyLast(cpu_period_usec_last) AS period, max(mem_current_max) AS mem, anyLast(mem_max_last) AS mem_max,
                  max(io_rbytes_max) AS rb, max(io_wbytes_max) AS wb, max(io_rios_max) AS ri, max(io_wios_max) AS wi
           FROM ${table}
           WHERE org_id = {org_id:String} AND cluster_id = {cluster_id:String}${filter}
             AND bucket >= ${start}(${msParam('from')}) AND bucket < ${msParam('to')}
           GROUP BY host, cgroup, bucket
           ORDER BY host, cgroup, bucket`;
  }
  const raw = await selectRows<Record<string, unknown>>(ch, sql, params);
  const rows: TCounterRow[] = raw.map((r) => ({
    host: String(r.host),
    cgroup: String(r.cgroup),
    node_id: toNum(r.node_id),
    ts: toNum(r.t),
    read_ts: toNum(r.read_t),
    cu: toNum(r.cu),
    np: toNum(r.np),
    nt: toNum(r.nt),
    tu: toNum(r.tu),
    quota: toNumOrNull(r.quota),
    period: toNum(r.period),
    mem: toNum(r.mem),
    mem_max: toNumOrNull(r.mem_max),
    rb: toNum(r.rb),
    wb: toNum(r.wb),
    ri: toNum(r.ri),
    wi: toNum(r.wi),
  }));
  return deriveCgroupRates(rows).filter((p) => p.ts >= q.from);
}

/** Pure: turns ordered counter readings (grouped by host, cgroup) into points with rates. */
export function deriveCgroupRates(rows: readonly TCounterRow[]): TCgroupPoint[] {
  const out: TCgroupPoint[] = [];
  let prev: TCounterRow | null = null;
  for (const r of rows) {
    const same = prev !== null && prev.host === r.host && prev.cgroup === r.cgroup;
    const dt = same ? (r.read_ts - prev!.read_ts) / 1000 : 0;
    const d = (a: number, b: number) => (same && dt > 0 && a >= b ? (a - b) / dt : null);
    const dcu = d(r.cu, prev?.cu ?? 0);
    const dnp = same ? r.np - prev!.np : 0;
    const dnt = same ? r.nt - prev!.nt : 0;
    const dtu = d(r.tu, prev?.tu ?? 0);
    out.push({
      ts: r.ts,
      host: r.host,
      cgroup: r.cgroup,
      node_id: r.node_id === 0 ? null : r.node_id,
      cpu_cores: dcu === null ? null : dcu / 1e6,
      cpu_limit_cores: r.quota === null || r.period <= 0 ? null : r.quota / r.period,
      throttled_ratio: same && dnp > 0 && dnt >= 0 ? dnt / dnp : null,
      throttled_s_per_s: dtu === null ? null : dtu / 1e6,
      mem_current: r.mem,
      mem_max: r.mem_max,
      io_read_bps: d(r.rb, prev?.rb ?? 0),
      io_write_bps: d(r.wb, prev?.wb ?? 0),
      io_read_iops: d(r.ri, prev?.ri ?? 0),
      io_write_iops: d(r.wi, prev?.wi ?? 0),
    });
    prev = r;
  }
  return out;
}
export type { TCounterRow as TCgroupCounterRow };
