import type { TEnvironment, TEnvironmentCgroup, TEnvironmentNode } from '@clusterscope/schema';
import type { TClickHouse } from '../client';
import { pickResolution, type TResolution } from './resolution';
import { assertRange, msParam, selectRows, toNum, toNumOrNull } from './util';

export type { TEnvironment, TEnvironmentCgroup, TEnvironmentNode };

export interface TEnvironmentQuery {
  orgId: string;
  clusterId: string;
  from: number;
  to: number;
  resolution?: TResolution;
  /** Throttled share of CFS periods above which a cgroup counts as throttled. Default 0.05. */
  throttledRatio?: number;
  /** mem_current / mem_max at or above which memory counts as near its limit. Default 0.9. */
  memoryRatio?: number;
}

/** Cluster health during a window, used to flag benchmark runs whose environment was unhealthy. */
export async function getEnvironment(ch: TClickHouse, q: TEnvironmentQuery): Promise<TEnvironment> {
  assertRange(q.from, q.to);
  const resolution = q.resolution ?? pickResolution(q.from, q.to);
  const throttledLimit = q.throttledRatio ?? 0.05;
  const memLimit = q.memoryRatio ?? 0.9;
  const params = { org_id: q.orgId, cluster_id: q.clusterId, from: q.from, to: q.to };
  const where = `org_id = {org_id:String} AND cluster_id = {cluster_id:String}`;

  let nodeSql: string;
  let cgSql: string;
  if (resolution === 'raw') {
    const range = `ts >= ${msParam('from')} AND ts < ${msParam('to')}`;
    nodeSql = `SELECT node_id, count() AS samples, countIf(liveness != 'LIVE') AS not_live,
                      groupUniqArrayIf(toString(liveness), liveness != 'LIVE') AS states,
                      max(ranges_underreplicated) AS ur, max(ranges_unavailable) AS ua
               FROM node_status WHERE ${where} AND ${range}
               GROUP BY node_id ORDER BY node_id`;
    cgSql = `SELECT host, cgroup,
                    max(cpu_nr_throttled) - min(cpu_nr_throttled) AS dthr,
                    max(cpu_nr_periods) - min(cpu_nr_periods) AS dper,
                    max(mem_current) AS mem, argMax(mem_max, ts) AS mem_max
             FROM cgroup_usage WHERE ${where} AND ${range}
             GROUP BY host, cgroup ORDER BY host, cgroup`;
  } else {
    const s = resolution === '1m' ? '1m' : '1h';
    const start = resolution === '1m' ? 'toStartOfMinute' : 'toStartOfHour';
    const range = `bucket >= ${start}(${msParam('from')}) AND bucket < ${msParam('to')}`;
    nodeSql = `SELECT node_id, sum(n) AS samples, sum(nl) AS not_live, groupUniqArrayIf(lv, lv != 'LIVE') AS states,
                      max(ur) AS ur, max(ua) AS ua
               FROM (
                 SELECT node_id, bucket, sum(samples) AS n, sum(not_live) AS nl, argMaxMerge(last_liveness) AS lv,
                        max(ranges_underreplicated_max) AS ur, max(ranges_unavailable_max) AS ua
                 FROM node_status_${s} WHERE ${where} AND ${range}
                 GROUP BY node_id, bucket
               )
               GROUP BY node_id ORDER BY node_id`;
    cgSql = `SELECT host, cgroup,
                    max(cpu_nr_throttled_max) - min(cpu_nr_throttled_max) AS dthr,
                    max(cpu_nr_periods_max) - min(cpu_nr_periods_max) AS dper,
                    max(mem_current_max) AS mem, argMax(tuple(mem_max_last), last_ts).1 AS mem_max
             FROM cgroup_usage_${s} WHERE ${where} AND ${range}
             GROUP BY host, cgroup ORDER BY host, cgroup`;
  }
  const [nodeRows, cgRows] = await Promise.all([
    selectRows<Record<string, unknown>>(ch, nodeSql, params),
    selectRows<Record<string, unknown>>(ch, cgSql, params),
  ]);

  const nodes: TEnvironmentNode[] = nodeRows.map((r) => ({
    node_id: toNum(r.node_id),
    samples: toNum(r.samples),
    not_live_samples: toNum(r.not_live),
    states: ((r.states ?? []) as unknown[]).map(String).sort(),
    max_ranges_underreplicated: toNum(r.ur),
    max_ranges_unavailable: toNum(r.ua),
  }));
  const cgroups: TEnvironmentCgroup[] = cgRows.map((r) => {
    const dper = toNum(r.dper);
    const memMax = toNumOrNull(r.mem_max);
    const mem = toNum(r.mem);
    return {
      host: String(r.host),
      cgroup: String(r.cgroup),
      throttled_ratio: dper > 0 ? Math.max(0, toNum(r.dthr)) / dper : null,
      max_mem_current: mem,
      mem_max: memMax,
      mem_ratio: memMax && memMax > 0 ? mem / memMax : null,
    };
  });
  return summarizeEnvironment({
    from: q.from,
    to: q.to,
    resolution,
    nodes,
    cgroups,
    throttledLimit,
    memLimit,
  });
}

/** Pure: builds the verdict and reasons from per-node and per-cgroup facts. */
export function summarizeEnvironment(a: {
  from: number;
  to: number;
  resolution: TResolution;
  nodes: TEnvironmentNode[];
  cgroups: TEnvironmentCgroup[];
  throttledLimit: number;
  memLimit: number;
}): TEnvironment {
  const notLive = a.nodes.filter((n) => n.not_live_samples > 0 || n.states.length > 0);
  const maxOf = (xs: (number | null)[]) =>
    xs.reduce<number | null>((m, x) => (x === null ? m : m === null ? x : Math.max(m, x)), null);
  const maxUr = maxOf(a.nodes.map((n) => n.max_ranges_underreplicated)) ?? 0;
  const maxUa = maxOf(a.nodes.map((n) => n.max_ranges_unavailable)) ?? 0;
  const throttled = a.cgroups.filter(
    (c) => c.throttled_ratio !== null && c.throttled_ratio > a.throttledLimit,
  );
  const nearMem = a.cgroups.filter((c) => c.mem_ratio !== null && c.mem_ratio >= a.memLimit);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const reasons = [
    ...notLive.map((n) => `node ${n.node_id} was ${n.states.join('/') || 'not LIVE'}`),
    ...(maxUa > 0 ? [`up to ${maxUa} unavailable ranges`] : []),
    ...(maxUr > 0 ? [`up to ${maxUr} under-replicated ranges`] : []),
    ...throttled.map(
      (c) => `cgroup ${c.cgroup} on ${c.host} throttled in ${pct(c.throttled_ratio!)} of CPU periods`,
    ),
    ...nearMem.map((c) => `cgroup ${c.cgroup} on ${c.host} used ${pct(c.mem_ratio!)} of its memory limit`),
  ];
  return {
    from: a.from,
    to: a.to,
    resolution: a.resolution,
    healthy: reasons.length === 0,
    reasons,
    has_node_data: a.nodes.length > 0,
    nodes_not_live: notLive,
    max_ranges_underreplicated: maxUr,
    max_ranges_unavailable: maxUa,
    max_throttled_ratio: maxOf(a.cgroups.map((c) => c.throttled_ratio)),
    max_mem_ratio: maxOf(a.cgroups.map((c) => c.mem_ratio)),
    cgroups_throttled: throttled,
    cgroups_near_memory_limit: nearMem,
  };
}
