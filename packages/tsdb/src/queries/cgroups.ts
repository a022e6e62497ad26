import type { TClickHouse } from '../client';
import { pickResolution, rollupBucketSql, rollupPoints, type TResolution } from './resolution';
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
 * The bucket's last value of a Nullable limit column, NULL (no limit) as NaN: argMax skips NULL values,
 * which would bring back a limit that was removed (a tuple would keep them, but reads slower).
 */
const lastOf = (col: string) => `argMax(ifNull(toFloat64(${col}), nan), last_ts)`;

/**
 * The columns of a cgroup series read, described once (the SELECT list and the reader both come from it),
 * ordered by series and time. Rates come from differences of consecutive readings of the cumulative
 * counters, taken while reading (cheaper than a window function in chDB's SQL).
 */
const COLS = {
  host: ['host', 'str'],
  cgroup: ['cgroup', 'str'],
  node_id: ['node_id', 'f64'],
  t: ['t', 'f64'],
  read_t: ['read_t', 'f64'],
  mem: ['mem', 'f64'],
  mem_max: ['ifNull(mem_max, nan)', 'f64'],
  quota: ['ifNull(quota, nan)', 'f64'],
  period: ['period', 'f64'],
  cu: ['cu', 'f64'],
  np: ['np', 'f64'],
  nt: ['nt', 'f64'],
  tu: ['tu', 'f64'],
  rb: ['rb', 'f64'],
  wb: ['wb', 'f64'],
  ri: ['ri', 'f64'],
  wi: ['wi', 'f64'],
  rl: ['ifNull(rl, nan)', 'f64'],
  wl: ['ifNull(wl, nan)', 'f64'],
} as const satisfies TRbColumns;

/** The counters whose differences give rates, and their slots in `d` below. */
const COUNTERS = ['cu', 'np', 'nt', 'tu', 'rb', 'wb', 'ri', 'wi'] as const;
const [CU, NP, NT, TU, RB, WB, RI, WI] = COUNTERS.map((_, i) => i);

/**
 * One cgroup's readings over a window, in columns (`t`: sample time or bucket start, epoch ms; NaN where a
 * value is missing: no rate for a series' first reading or after a counter reset, no limit). A series whose
 * node id changes is split there, so every block has one `node_id`.
 */
export interface TCgroupCols {
  host: string;
  cgroup: string;
  node_id: number | null;
  t: number[];
  /** CPU used, in cores (µs of CPU per µs of wall time). */
  cpu_cores: number[];
  /** cpu.max quota / period; NaN = unlimited. */
  cpu_limit_cores: number[];
  /** Share of CFS periods that were throttled. */
  throttled_ratio: number[];
  /** Seconds throttled per second. */
  throttled_s_per_s: number[];
  /** Memory in use (raw) or the bucket max (rollups), bytes. */
  mem_current: number[];
  mem_max: number[];
  io_read_bps: number[];
  io_write_bps: number[];
  io_read_iops: number[];
  io_write_iops: number[];
  /** io.max rbps / wbps: the sum over the devices that have one; NaN = none is limited. */
  io_read_bps_limit: number[];
  io_write_bps_limit: number[];
}

/** The value columns of a block, in `TCgroupCols` order. */
export const CGROUP_VALUES = [
  'cpu_cores', 'cpu_limit_cores', 'throttled_ratio', 'throttled_s_per_s', 'mem_current', 'mem_max',
  'io_read_bps', 'io_write_bps', 'io_read_iops', 'io_write_iops', 'io_read_bps_limit', 'io_write_bps_limit',
] as const satisfies readonly (keyof TCgroupCols)[]; // prettier-ignore
export type TCgroupValue = (typeof CGROUP_VALUES)[number];

/** An empty block of a series; with `cap`, its columns have room for that many readings. */
export function cgroupCols(host: string, cgroup: string, node_id: number | null, cap = 0): TCgroupCols {
  const col = (): number[] => (cap > 0 ? new Array<number>(cap) : []);
  const b = { host, cgroup, node_id, t: col() } as TCgroupCols;
  for (const k of CGROUP_VALUES) b[k] = col();
  return b;
}

/** Cuts a block's columns to its first `n` readings. */
function trim(b: TCgroupCols, n: number) {
  b.t.length = n;
  for (const k of CGROUP_VALUES) b[k].length = n;
}

/**
 * cgroup CPU, throttling, memory and IO over a window, one block of columns per series (ordered by host and
 * cgroup); rates come from consecutive counter readings. Columns, not a point object per reading: a 30-day
 * chart reads thousands of readings, and an object each costs memory and collection per call.
 */
export async function getCgroupSeries(ch: TClickHouse, q: TCgroupSeriesQuery): Promise<TCgroupCols[]> {
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
                  ${lastOf('cpu_quota_usec_last')} AS quota, argMax(cpu_period_usec_last, last_ts) AS period,
                  ${lastOf('mem_max_last')} AS mem_max, ${lastOf('io_rbps_limit')} AS rl, ${lastOf('io_wbps_limit')} AS wl
           FROM ${table}
           WHERE ${where} AND bucket >= ${b.of(msParam('from'))} AND bucket < ${msParam('to')}
           GROUP BY host, cgroup, t`;
  }
  const query = `SELECT ${rbSelectList(COLS)} FROM (${sql}) ORDER BY host, cgroup, t`;
  // Rollup bucket starts come in seconds (shorter to sort and send).
  const scale = resolution === 'raw' ? 1 : 1000;
  const cap = rollupPoints(resolution, q.from, q.to, q.stepMs);
  return toBlocks(rbRows(await selectRowBinary(ch, query, params), COLS), q.from, scale, cap);
}

/**
 * The blocks of a read's rows (ordered by series and time), readings before `from` used only for rates.
 * Not inlined into the async read: V8 leaves a loop inside an async function unoptimized, boxing every number.
 */
function toBlocks(
  r: ReturnType<typeof rbRows<typeof COLS>>,
  from: number,
  scale: number,
  cap: number,
): TCgroupCols[] {
  const { num: v, str: s, at } = r;
  // The previous reading of the same series (NaN: none), and the differences to it (NaN: no previous
  // reading, or a counter went down: a reset).
  const prev = new Float64Array(COUNTERS.length).fill(NaN);
  let prevT = NaN;
  const d = new Float64Array(COUNTERS.length);
  const slots = COUNTERS.map((c) => at[c]);
  const rate = (x: number, dt: number, scale: number) => (dt > 0 && x >= 0 ? x / dt / scale : NaN);
  const out: TCgroupCols[] = [];
  let b: TCgroupCols | null = null;
  let n = 0; // readings in b
  let host: string | null = null;
  let cgroup: string | null = null;
  while (r.next()) {
    if (s[at.host] !== host || s[at.cgroup] !== cgroup) {
      host = s[at.host];
      cgroup = s[at.cgroup];
      prev.fill(NaN);
      prevT = NaN;
      if (b) trim(b, n);
      b = null;
    }
    const readT = v[at.read_t];
    const dt = (readT - prevT) / 1000; // NaN for a series' first reading
    for (let i = 0; i < slots.length; i++) {
      const x = v[slots[i]];
      d[i] = x - prev[i];
      prev[i] = x;
    }
    prevT = readT;
    const ts = v[at.t] * scale;
    if (ts < from) continue; // lookback reading: only there for the next point's rates
    const nodeId = v[at.node_id] === 0 ? null : v[at.node_id];
    if (b === null || b.node_id !== nodeId) {
      if (b) trim(b, n);
      out.push((b = cgroupCols(host, cgroup as string, nodeId, cap)));
      n = 0;
    }
    // NaN fails every comparison: no rate. Past `cap`, a column grows as with push.
    const quota = v[at.quota];
    const period = v[at.period];
    b.t[n] = ts;
    b.cpu_cores[n] = rate(d[CU], dt, 1e6);
    b.cpu_limit_cores[n] = period > 0 ? quota / period : NaN;
    b.throttled_ratio[n] = d[NP] > 0 && d[NT] >= 0 ? d[NT] / d[NP] : NaN;
    b.throttled_s_per_s[n] = rate(d[TU], dt, 1e6);
    b.mem_current[n] = v[at.mem];
    b.mem_max[n] = v[at.mem_max];
    b.io_read_bps[n] = rate(d[RB], dt, 1);
    b.io_write_bps[n] = rate(d[WB], dt, 1);
    b.io_read_iops[n] = rate(d[RI], dt, 1);
    b.io_write_iops[n] = rate(d[WI], dt, 1);
    b.io_read_bps_limit[n] = v[at.rl];
    b.io_write_bps_limit[n] = v[at.wl];
    n++;
  }
  if (b) trim(b, n);
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
