import type { TLiveness } from '@clusterscope/schema';
import type { TClickHouse } from '../client';
import { selectRows, toNum } from './util';

/** What the alert evaluator reads per node: the latest sample of every node of the given orgs. */
export interface TAlertNode {
  org_id: string;
  cluster_id: string;
  node_id: number;
  ts: number;
  liveness: TLiveness;
  ranges: number;
  ranges_unavailable: number;
  ranges_underreplicated: number;
  replicas: number;
  replicas_leaseholders: number;
  live_bytes: number;
  capacity: number;
  capacity_available: number;
  capacity_used: number;
  uptime_s: number;
}

const NODE_NUMERIC = [
  'node_id', 'ts', 'ranges', 'ranges_unavailable', 'ranges_underreplicated', 'replicas', 'replicas_leaseholders',
  'live_bytes', 'capacity', 'capacity_available', 'capacity_used', 'uptime_s',
] as const; // prettier-ignore

/** Latest state of every node of `orgIds` in one read of node_latest (the evaluator's batched read). */
export async function getLatestNodesForOrgs(
  ch: TClickHouse,
  orgIds: readonly string[],
): Promise<TAlertNode[]> {
  if (orgIds.length === 0) return [];
  const rows = await selectRows<Record<string, unknown>>(
    ch,
    `SELECT org_id, cluster_id, node_id, toUnixTimestamp64Milli(ts) AS ts, toString(liveness) AS liveness,
            ranges, ranges_unavailable, ranges_underreplicated, replicas, replicas_leaseholders, live_bytes,
            capacity, capacity_available, capacity_used, uptime_s
     FROM node_latest FINAL
     WHERE org_id IN {org_ids:Array(String)}`,
    { org_ids: [...orgIds] },
  );
  return rows.map((r) => {
    const out = {
      org_id: String(r.org_id),
      cluster_id: String(r.cluster_id),
      liveness: r.liveness,
    } as TAlertNode;
    for (const k of NODE_NUMERIC) out[k] = toNum(r[k]);
    return out;
  });
}

/** Latest reading of every cgroup of `orgIds`, with rates from the previous reading. */
export interface TAlertCgroup {
  org_id: string;
  cluster_id: string;
  host: string;
  cgroup: string;
  node_id: number | null;
  ts: number;
  cpu_cores: number | null;
  cpu_limit_cores: number | null;
  throttled_ratio: number | null;
  mem_current: number;
  mem_max: number | null;
  io_read_bps: number | null;
  io_write_bps: number | null;
}

export async function getLatestCgroupsForOrgs(
  ch: TClickHouse,
  orgIds: readonly string[],
): Promise<TAlertCgroup[]> {
  if (orgIds.length === 0) return [];
  const rows = await selectRows<{
    org_id: string;
    cluster_id: string;
    host: string;
    cgroup: string;
    r: unknown[][];
  }>(
    ch,
    `SELECT org_id, cluster_id, host, cgroup, groupArraySortedMerge(2)(last2) AS r
     FROM cgroup_latest
     WHERE org_id IN {org_ids:Array(String)}
     GROUP BY org_id, cluster_id, host, cgroup`,
    { org_ids: [...orgIds] },
  );
  return rows.map(({ org_id, cluster_id, host, cgroup, r }) => {
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
      org_id,
      cluster_id,
      host,
      cgroup,
      node_id: cur[1] === 0 ? null : (cur[1] as number),
      ts,
      cpu_cores: rate(2, 1e6),
      cpu_limit_cores: quota === null || period <= 0 ? null : quota / period,
      throttled_ratio: dnp !== null && dnt !== null && dnp > 0 ? dnt / dnp : null,
      mem_current: cur[7] as number,
      mem_max: cur[8],
      io_read_bps: rate(9),
      io_write_bps: rate(10),
    };
  });
}
export * from './alerting-metrics';
