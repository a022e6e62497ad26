import type { TLiveness } from '@clusterscope/schema';
import type { TClickHouse } from '../client';
import { msParam, selectRows, toBool, toNum, toNumOrNull } from './util';

export interface TNodeLatest {
  cluster_id: string;
  node_id: number;
  ts: number;
  address: string;
  sql_address: string;
  locality: string;
  build: string;
  started_at: number | null;
  updated_at: number | null;
  liveness: TLiveness;
  is_live: boolean;
  is_available: boolean;
  is_draining: boolean;
  membership: string;
  replicas: number | null;
  replicas_leaders: number | null;
  replicas_leaseholders: number | null;
  ranges: number | null;
  ranges_unavailable: number | null;
  ranges_underreplicated: number | null;
  live_bytes: number | null;
  key_bytes: number | null;
  value_bytes: number | null;
  intent_bytes: number | null;
  system_bytes: number | null;
  capacity: number | null;
  capacity_available: number | null;
  capacity_used: number | null;
  uptime_s: number;
}

const NUMERIC = ['node_id', 'ts', 'uptime_s'] as const;
/** Unknown (NULL) when the source did not report them. */
const NULLABLE = [
  'replicas', 'replicas_leaders', 'replicas_leaseholders', 'ranges', 'ranges_unavailable',
  'ranges_underreplicated', 'live_bytes', 'key_bytes', 'value_bytes', 'intent_bytes', 'system_bytes', 'capacity',
  'capacity_available', 'capacity_used',
] as const; // prettier-ignore

function toNodeLatest(r: Record<string, unknown>): TNodeLatest {
  const out = {
    cluster_id: String(r.cluster_id),
    address: String(r.address),
    sql_address: String(r.sql_address),
    locality: String(r.locality),
    build: String(r.build),
    started_at: toNumOrNull(r.started_ms),
    updated_at: toNumOrNull(r.updated_ms),
    liveness: String(r.liveness) as TLiveness,
    is_live: toBool(r.is_live),
    is_available: toBool(r.is_available),
    is_draining: toBool(r.is_draining),
    membership: String(r.membership),
  } as TNodeLatest;
  for (const k of NUMERIC) out[k] = toNum(r[k === 'ts' ? 'ts_ms' : k]);
  for (const k of NULLABLE) out[k] = toNumOrNull(r[k]);
  return out;
}

/** Latest known state of every node of a cluster (from node_latest), ordered by node id. */
export async function getLatestNodes(
  ch: TClickHouse,
  orgId: string,
  clusterId: string,
): Promise<TNodeLatest[]> {
  const rows = await selectRows<Record<string, unknown>>(
    ch,
    `SELECT * EXCEPT (org_id, ts, started_at, updated_at),
            toUnixTimestamp64Milli(ts) AS ts_ms,
            toUnixTimestamp64Milli(started_at) AS started_ms,
            toUnixTimestamp64Milli(updated_at) AS updated_ms
     FROM node_latest FINAL
     WHERE org_id = {org_id:String} AND cluster_id = {cluster_id:String}
     ORDER BY node_id`,
    { org_id: orgId, cluster_id: clusterId },
  );
  return rows.map(toNodeLatest);
}

export interface TClusterSummary {
  cluster_id: string;
  /** Nodes not decommissioned. */
  nodes: number;
  live: number;
  /** UNAVAILABLE or UNKNOWN. */
  suspect: number;
  dead: number;
  /** DRAINING or DECOMMISSIONING. */
  draining: number;
  decommissioned: number;
  /** Nodes whose latest sample is older than `staleAfterMs`. */
  stale: number;
  by_liveness: Partial<Record<TLiveness, number>>;
  ranges_underreplicated: number;
  ranges_unavailable: number;
  replicas: number;
  /** Newest sample of any node; null when the cluster never reported. */
  last_ts: number | null;
}

/** One summary per requested cluster id (zeros and last_ts null for clusters without data). */
export async function getClusterSummaries(
  ch: TClickHouse,
  orgId: string,
  clusterIds: readonly string[],
  opts: { now?: number; staleAfterMs?: number } = {},
): Promise<TClusterSummary[]> {
  if (clusterIds.length === 0) return [];
  const staleBefore = (opts.now ?? Date.now()) - (opts.staleAfterMs ?? 120_000);
  const rows = await selectRows<Record<string, unknown>>(
    ch,
    `SELECT cluster_id,
            countIf(liveness != 'DECOMMISSIONED') AS nodes,
            countIf(liveness = 'LIVE') AS live,
            countIf(liveness IN ('UNAVAILABLE', 'UNKNOWN')) AS suspect,
            countIf(liveness = 'DEAD') AS dead,
            countIf(liveness IN ('DRAINING', 'DECOMMISSIONING')) AS draining,
            countIf(liveness = 'DECOMMISSIONED') AS decommissioned,
            countIf(liveness != 'DECOMMISSIONED' AND ts < ${msParam('stale_before')}) AS stale,
            sumMap(map(toString(liveness), toUInt64(1))) AS by_liveness,
            sum(ranges_underreplicated) AS ranges_underreplicated,
            sum(ranges_unavailable) AS ranges_unavailable,
            sum(replicas) AS replicas,
            toUnixTimestamp64Milli(max(ts)) AS last_ts
     FROM node_latest FINAL
     WHERE org_id = {org_id:String} AND cluster_id IN {cluster_ids:Array(String)}
     GROUP BY cluster_id`,
    { org_id: orgId, cluster_ids: [...clusterIds], stale_before: staleBefore },
  );
  const byId = new Map(rows.map((r) => [String(r.cluster_id), r]));
  return clusterIds.map((id) => {
    const r = byId.get(id);
    if (!r) {
      return {
        cluster_id: id, nodes: 0, live: 0, suspect: 0, dead: 0, draining: 0, decommissioned: 0, stale: 0,
        by_liveness: {}, ranges_underreplicated: 0, ranges_unavailable: 0, replicas: 0, last_ts: null,
      }; // prettier-ignore
    }
    const by: Partial<Record<TLiveness, number>> = {};
    for (const [k, v] of Object.entries((r.by_liveness ?? {}) as Record<string, unknown>))
      by[k as TLiveness] = toNum(v);
    return {
      cluster_id: id,
      nodes: toNum(r.nodes),
      live: toNum(r.live),
      suspect: toNum(r.suspect),
      dead: toNum(r.dead),
      draining: toNum(r.draining),
      decommissioned: toNum(r.decommissioned),
      stale: toNum(r.stale),
      by_liveness: by,
      ranges_underreplicated: toNum(r.ranges_underreplicated),
      ranges_unavailable: toNum(r.ranges_unavailable),
      replicas: toNum(r.replicas),
      last_ts: toNumOrNull(r.last_ts),
    };
  });
}
