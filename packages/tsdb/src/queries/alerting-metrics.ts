import type { TClickHouse } from '../client';
import { msParam, selectRows, toNum } from './util';

/**
 * What a `metric` alert rule reads: per cluster, metric name, node and histogram bound (`le`, '' for
 * none), over the window [from, to) of the raw `metrics` table:
 * - `rate`: the per-second increase of each series (PromQL `rate`: a reading below the previous one is
 *   a reset and counts in full), summed over the node's series; null when no series had two readings;
 * - `gauge`: each series' mean, summed over the node's series (e.g. stores).
 * Only series whose labels equal every matcher count.
 */
export interface TAlertMetricRow {
  org_id: string;
  cluster_id: string;
  name: string;
  node_id: number;
  le: string;
  rate: number | null;
  gauge: number;
}

export async function getAlertMetricWindows(
  ch: TClickHouse,
  q: {
    orgIds: readonly string[];
    clusterIds: readonly string[];
    names: readonly string[];
    matchers: Record<string, string>;
    from: number;
    to: number;
  },
): Promise<TAlertMetricRow[]> {
  if (q.orgIds.length === 0 || q.clusterIds.length === 0 || q.names.length === 0) return [];
  const keys = Object.keys(q.matchers).sort();
  const rows = await selectRows<Record<string, unknown>>(
    ch,
    `SELECT org_id, cluster_id, name, node_id, le,
            if(countIf(secs > 0) = 0, NULL, sumIf(inc / secs, secs > 0)) AS rate, sum(av) AS gauge
     FROM (
       SELECT org_id, cluster_id, name, node_id, labels['le'] AS le,
              sumIf(if(value >= pv, value - pv, value), pt > 0) AS inc, sumIf(t - pt, pt > 0) / 1000 AS secs,
              avg(value) AS av
       FROM (
         SELECT org_id, cluster_id, name, node_id, host, labels, toUnixTimestamp64Milli(ts) AS t, value,
                lagInFrame(t, 1, toInt64(0)) OVER w AS pt, lagInFrame(value) OVER w AS pv
         FROM metrics
         WHERE org_id IN {org_ids:Array(String)} AND cluster_id IN {cluster_ids:Array(String)}
           AND name IN {names:Array(String)}
           AND ts >= ${msParam('from')} AND ts < ${msParam('to')}
           AND arrayAll((k, v) -> labels[k] = v, {mk:Array(String)}, {mv:Array(String)})
         WINDOW w AS (PARTITION BY org_id, cluster_id, name, node_id, host, labels ORDER BY ts
                      ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
       )
       GROUP BY org_id, cluster_id, name, node_id, host, labels
     )
     GROUP BY org_id, cluster_id, name, node_id, le`,
    {
      org_ids: [...q.orgIds],
      cluster_ids: [...q.clusterIds],
      names: [...q.names],
      mk: keys,
      mv: keys.map((k) => q.matchers[k]),
      from: Math.floor(q.from),
      to: Math.ceil(q.to),
    },
  );
  return rows.map((r) => ({
    org_id: String(r.org_id),
    cluster_id: String(r.cluster_id),
    name: String(r.name),
    node_id: toNum(r.node_id),
    le: String(r.le ?? ''),
    rate: r.rate == null ? null : toNum(r.rate),
    gauge: toNum(r.gauge),
  }));
}
