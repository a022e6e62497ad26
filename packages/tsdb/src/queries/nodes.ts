import type { TLiveness } from '@clusterscope/schema';
import type { TClickHouse } from '../client';
import { selectRows, toBool, toNum, toNumOrNull } from './util';

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

/** The columns the health lists need (cluster list, on-call). */
export interface TNodeState {
  node_id: number;
  ts: number;
  address: string;
  liveness: TLiveness;
  ranges_underreplicated: number;
  ranges_unavailable: number;
}

/**
 * Latest state of every node of several clusters in ONE query (list pages, on-call), by node id; every
 * requested cluster has an entry (empty when it never reported).
 */
export async function getLatestNodeStates(
  ch: TClickHouse,
  orgId: string,
  clusterIds: readonly string[],
): Promise<Map<string, TNodeState[]>> {
  const out = new Map<string, TNodeState[]>(clusterIds.map((id) => [id, []]));
  if (clusterIds.length === 0) return out;
  const rows = await selectRows<Record<string, unknown>>(
    ch,
    `SELECT cluster_id, node_id, toUnixTimestamp64Milli(ts) AS ts_ms, address, liveness,
            ranges_underreplicated, ranges_unavailable
     FROM node_latest FINAL
     WHERE org_id = {org_id:String} AND cluster_id IN {cluster_ids:Array(String)}
     ORDER BY cluster_id, node_id`,
    { org_id: orgId, cluster_ids: [...clusterIds] },
  );
  for (const r of rows)
    out.get(String(r.cluster_id))?.push({
      node_id: toNum(r.node_id),
      ts: toNum(r.ts_ms),
      address: String(r.address),
      liveness: String(r.liveness) as TLiveness,
      ranges_underreplicated: toNum(r.ranges_underreplicated),
      ranges_unavailable: toNum(r.ranges_unavailable),
    });
  return out;
}
