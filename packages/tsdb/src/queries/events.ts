import type { TLiveness } from '@clusterscope/schema';
import type { TClickHouse } from '../client';
import { assertRange, msParam, selectRows, toNum } from './util';

export interface TNodeEvent {
  ts: number;
  node_id: number;
  from: TLiveness;
  to: TLiveness;
}

export interface TNodeEventsQuery {
  orgId: string;
  clusterId: string;
  nodeId?: number;
  from: number;
  to: number;
  /** Readings this far before `from` are compared too, so a change at the window start is seen. Default 1 h. */
  lookbackMs?: number;
  limit?: number;
}

/** Liveness transitions (e.g. LIVE -> DRAINING -> DEAD) derived from consecutive node_status samples. */
export async function getNodeEvents(ch: TClickHouse, q: TNodeEventsQuery): Promise<TNodeEvent[]> {
  assertRange(q.from, q.to);
  const params: Record<string, unknown> = {
    org_id: q.orgId,
    cluster_id: q.clusterId,
    scan_from: q.from - (q.lookbackMs ?? 3_600_000),
    from: q.from,
    to: q.to,
    limit: q.limit ?? 1000,
  };
  const nodeFilter = q.nodeId === undefined ? '' : 'AND node_id = {node_id:UInt32}';
  if (q.nodeId !== undefined) params.node_id = q.nodeId;
  const rows = await selectRows<Record<string, unknown>>(
    ch,
    `SELECT node_id, toUnixTimestamp64Milli(ts) AS t, prev, cur
     FROM (
       SELECT node_id, ts, toString(liveness) AS cur,
              lagInFrame(toString(liveness)) OVER (PARTITION BY node_id ORDER BY ts
                ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS prev
       FROM node_status
       WHERE org_id = {org_id:String} AND cluster_id = {cluster_id:String} ${nodeFilter}
         AND ts >= ${msParam('scan_from')} AND ts < ${msParam('to')}
     )
     WHERE prev != '' AND prev != cur AND ts >= ${msParam('from')}
     ORDER BY ts, node_id
     LIMIT {limit:UInt32}`,
    params,
  );
  return rows.map((r) => ({
    ts: toNum(r.t),
    node_id: toNum(r.node_id),
    from: String(r.prev) as TLiveness,
    to: String(r.cur) as TLiveness,
  }));
}
