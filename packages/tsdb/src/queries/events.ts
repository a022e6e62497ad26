import type { TLiveness } from '@clusterscope/schema';
import type { TClickHouse } from '../client';
import { RESOLUTION_LIMITS } from './resolution';
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
  /** Forces the source; default: raw up to a 1-day window (inside raw retention), else the 1 m rollup. */
  source?: 'raw' | '1m';
}

/** Longest window whose events are derived from raw samples (a day of 10 s samples scans fast). */
export const RAW_EVENTS_MAX_SPAN_MS = 86_400_000;
/** Longest window whose raw samples are all read; longer ones read only the hours that can hold a change. */
export const RAW_SCAN_ALL_MAX_SPAN_MS = 6 * 3_600_000;

/**
 * Liveness transitions (e.g. LIVE -> DRAINING -> DEAD) derived from consecutive node_status samples:
 * the newest `limit`, oldest first.
 * Longer windows (7 d, 30 d) read the 1 m rollup instead: transitions between each minute's last
 * liveness, stamped at that minute's start (or `from`). There, states shorter than a minute may be
 * merged or missed (LIVE -> SUSPECT -> LIVE inside one minute is not seen; LIVE -> DRAINING -> DEAD
 * inside one minute reads as LIVE -> DEAD).
 */
/**
 * Hours (per node) that can hold a minute-level transition: some sample was not LIVE, or the hour ends in another
 * state than the hour before. A healthy month reads ~36k hourly rows and no minutes; the 1 m read below keeps only
 * these hours and the hour before each (for the state a transition starts from), and so does the raw read of windows
 * over 6 h (a day of 50 nodes is 432k samples; a healthy day reads none of them; short windows read all, faster).
 */
const CHANGED_HOURS = `
  SELECT node_id, h FROM (
    SELECT node_id, h, nl, last,
           lagInFrame(last) OVER (PARTITION BY node_id ORDER BY h ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS prev
    FROM (
      SELECT node_id, bucket AS h, sum(not_live) AS nl, argMaxMerge(last_liveness) AS last
      FROM node_status_1h
      WHERE org_id = {org_id:String} AND cluster_id = {cluster_id:String} NODE_FILTER
        AND bucket >= toStartOfHour(${msParam('scan_from')}) AND bucket < ${msParam('to')}
      GROUP BY node_id, bucket
    )
  )
  WHERE nl > 0 OR (prev != '' AND prev != last)`;

/** CHANGED_HOURS and the hour before each (for the state a transition starts from): raw and 1 m reads keep only these. */
const CHANGED_HOURS_AND_BEFORE = `SELECT node_id, arrayJoin([h, h - INTERVAL 1 HOUR]) FROM (${CHANGED_HOURS})`;

/** Where getNodeEvents derives a window's transitions from when not told: raw up to a day inside raw retention. */
export const pickEventsSource = (w: { from: number; to: number }, now: number = Date.now()): 'raw' | '1m' =>
  w.to - w.from <= RAW_EVENTS_MAX_SPAN_MS && w.from >= now - RESOLUTION_LIMITS.rawRetentionMs ? 'raw' : '1m';

export async function getNodeEvents(ch: TClickHouse, q: TNodeEventsQuery): Promise<TNodeEvent[]> {
  assertRange(q.from, q.to);
  const source = q.source ?? pickEventsSource(q);
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
    source === '1m'
      ? `SELECT node_id, greatest(toUnixTimestamp(bucket) * 1000, {from:Int64}) AS t, prev, cur
     FROM (
       SELECT node_id, bucket, cur,
              lagInFrame(cur) OVER (PARTITION BY node_id ORDER BY bucket
                ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS prev
       FROM (
         SELECT node_id, bucket, argMaxMerge(last_liveness) AS cur
         FROM node_status_1m
         WHERE org_id = {org_id:String} AND cluster_id = {cluster_id:String} ${nodeFilter}
           AND bucket >= toStartOfMinute(${msParam('scan_from')}) AND bucket < ${msParam('to')}
           AND (node_id, toStartOfHour(bucket)) IN (${CHANGED_HOURS_AND_BEFORE.replace('NODE_FILTER', nodeFilter)})
         GROUP BY node_id, bucket
       )
     )
     WHERE prev != '' AND prev != cur AND bucket >= toStartOfMinute(${msParam('from')})
     ORDER BY t DESC, node_id DESC
     LIMIT {limit:UInt32}`
      : `SELECT node_id, toUnixTimestamp64Milli(ts) AS t, prev, cur
     FROM (
       SELECT node_id, ts, toString(liveness) AS cur,
              lagInFrame(toString(liveness)) OVER (PARTITION BY node_id ORDER BY ts
                ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS prev
       FROM node_status
       WHERE org_id = {org_id:String} AND cluster_id = {cluster_id:String} ${nodeFilter}
         AND ts >= ${msParam('scan_from')} AND ts < ${msParam('to')}
         ${q.to - q.from > RAW_SCAN_ALL_MAX_SPAN_MS ? `AND (node_id, toStartOfHour(ts)) IN (${CHANGED_HOURS_AND_BEFORE.replace('NODE_FILTER', nodeFilter)})` : ''}
     )
     WHERE prev != '' AND prev != cur AND ts >= ${msParam('from')}
     ORDER BY ts DESC, node_id DESC
     LIMIT {limit:UInt32}`,
    params,
  );
  // The newest `limit` transitions, returned oldest first.
  return rows.reverse().map((r) => ({
    ts: toNum(r.t),
    node_id: toNum(r.node_id),
    from: String(r.prev) as TLiveness,
    to: String(r.cur) as TLiveness,
  }));
}
