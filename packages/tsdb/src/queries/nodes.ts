import type { TLiveness } from '@clusterscope/schema';
import type { TClickHouse } from '../client';
import { TABLE_COLUMNS } from '../encode';
import { latestRowSql, readColumn, selectRows, toNum } from './util';

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

/** node_latest has node_status's columns: the same description drives the SELECT and the reader. */
const LATEST_COLS = TABLE_COLUMNS.node_status.filter((c) => c.name !== 'node_id' && c.name !== 'ts');
const KIND = new Map(LATEST_COLS.map((c) => [c.name, c.kind]));

function readNode<T>(r: Record<string, unknown>, names: readonly string[]): T {
  const out: Record<string, unknown> = { node_id: toNum(r.node_id), ts: toNum(r.ts) };
  for (const n of names) out[n] = readColumn(KIND.get(n)!, r[n]);
  return out as T;
}

/** Latest known state of every node of a cluster (from node_latest), ordered by node id. */
export async function getLatestNodes(
  ch: TClickHouse,
  orgId: string,
  clusterId: string,
): Promise<TNodeLatest[]> {
  const rows = await selectRows<Record<string, unknown>>(
    ch,
    latestRowSql(
      'node_latest',
      ['node_id'],
      LATEST_COLS,
      'org_id = {org_id:String} AND cluster_id = {cluster_id:String}',
    ),
    { org_id: orgId, cluster_id: clusterId },
  );
  const names = LATEST_COLS.map((c) => c.name);
  return rows.map((r) => ({ cluster_id: clusterId, ...readNode<Omit<TNodeLatest, 'cluster_id'>>(r, names) }));
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
  /** null: every cluster of the org (read while the caller's clusters are listed; callers pick theirs). */
  clusterIds: readonly string[] | null,
): Promise<Map<string, TNodeState[]>> {
  const out = new Map<string, TNodeState[]>((clusterIds ?? []).map((id) => [id, []]));
  if (clusterIds?.length === 0) return out;
  const names = ['address', 'liveness', 'ranges_underreplicated', 'ranges_unavailable'] as const;
  const rows = await selectRows<Record<string, unknown>>(
    ch,
    latestRowSql(
      'node_latest',
      ['cluster_id', 'node_id'],
      LATEST_COLS.filter((c) => (names as readonly string[]).includes(c.name)),
      `org_id = {org_id:String}${clusterIds ? ' AND cluster_id IN {cluster_ids:Array(String)}' : ''}`,
    ),
    clusterIds ? { org_id: orgId, cluster_ids: [...clusterIds] } : { org_id: orgId },
  );
  for (const r of rows) {
    const n = readNode<TNodeState>(r, names);
    // Unknown trouble counts count as none in the health lists.
    n.ranges_underreplicated ??= 0;
    n.ranges_unavailable ??= 0;
    const id = String(r.cluster_id);
    let list = out.get(id);
    if (!list) {
      if (clusterIds) continue;
      out.set(id, (list = []));
    }
    list.push(n);
  }
  return out;
}
