import type { TChartSeries, TDbCharts, TDbTenant, TRunDbMetrics, TSampleKind } from '@clusterscope/schema';
import {
  bucketMs,
  getCounterRates,
  getGaugeSeries,
  getHistogramQuantiles,
  getMetricTenants,
  hasMetrics,
  MAX_TENANTS,
  metricStepMs,
  pickResolution,
  type TMetricPoint,
  type TQuantilePoint,
  type TResolution,
} from '@clusterscope/tsdb';
import type { TDeps } from '../core/deps';
import { pointList, readLatestOf, readSeries } from '../reads/series-cache';

/**
 * The CockroachDB metric families the database panels read (names as /_status/vars exports them;
 * listed per panel in packages/tsdb/README.md).
 */
export const DB_FAMILIES = {
  statements: {
    select: 'sql_select_count',
    insert: 'sql_insert_count',
    update: 'sql_update_count',
    delete: 'sql_delete_count',
  },
  /** SQL transactions; older versions' KV counters are the fallback. */
  transactions: {
    commits: ['sql_txn_commit_count', 'txn_commits'],
    aborts: ['sql_txn_abort_count', 'txn_aborts'],
  },
  /** Histogram in nanoseconds. */
  latency: 'sql_service_latency',
  gauges: {
    connections: 'sql_conns',
    capacity: 'capacity',
    capacity_used: 'capacity_used',
    capacity_available: 'capacity_available',
    live_bytes: 'livebytes',
    cpu: 'sys_cpu_combined_percent_normalized',
    rss: 'sys_rss',
    replicas: 'replicas',
    leaseholders: 'replicas_leaseholders',
  },
} as const;

const STATEMENT_NAMES = Object.values(DB_FAMILIES.statements);
const TXN_NAMES = [...DB_FAMILIES.transactions.commits, ...DB_FAMILIES.transactions.aborts];
/** Gauges of the KV and process panels (the cluster's, whatever the tenant choice). */
const GAUGE_NAMES = Object.values(DB_FAMILIES.gauges).filter((n) => n !== DB_FAMILIES.gauges.connections);
/** Gauges of the SQL panels (per tenant on v25+). */
const SQL_GAUGE_NAMES = [DB_FAMILIES.gauges.connections];

/** Raw metric points are at least this wide: a few scrapes per point, so nodes line up. */
const MIN_RAW_STEP_MS = 30_000;

const round = (v: number) => (v === 0 || !Number.isFinite(v) ? v : Number(v.toPrecision(4)));

/** Pure: one series per node (sorted by node) of `name`. */
export function perNodeSeries(points: readonly TMetricPoint[], name: string, scale = 1): TChartSeries[] {
  const m = new Map<number, TChartSeries>();
  for (const p of points) {
    if (p.name !== name) continue;
    let s = m.get(p.node_id);
    if (!s)
      m.set(
        p.node_id,
        (s = { name: p.node_id ? `n${p.node_id}` : 'other', node_id: p.node_id || null, data: [] }),
      );
    s.data.push([p.ts, round(p.value * scale)]);
  }
  return [...m.values()].sort((a, b) => (a.node_id ?? 1e9) - (b.node_id ?? 1e9));
}

/** Pure: the sum over nodes of the first of `names` that has points, per step, as series `label`. */
export function summedSeries(
  points: readonly TMetricPoint[],
  names: readonly string[],
  label: string,
): TChartSeries | null {
  const name = names.find((n) => points.some((p) => p.name === n));
  if (name === undefined) return null;
  const by = new Map<number, number>();
  for (const p of points) if (p.name === name) by.set(p.ts, (by.get(p.ts) ?? 0) + p.value);
  const data = [...by.entries()].sort((a, b) => a[0] - b[0]).map(([t, v]): [number, number] => [t, round(v)]);
  return { name: label, node_id: null, data };
}

/** Pure: used / (used + available) per step over the selected nodes. */
export function capacityRatio(points: readonly TMetricPoint[]): TChartSeries[] {
  const used = summedSeries(points, [DB_FAMILIES.gauges.capacity_used], 'used');
  const avail = summedSeries(points, [DB_FAMILIES.gauges.capacity_available], 'available');
  if (!used || !avail) return [];
  const a = new Map(avail.data);
  const data = used.data.flatMap(([t, u]): [number, number][] => {
    const v = a.get(t);
    return v == null || u === null || u + v <= 0 ? [] : [[t, round(u / (u + v))]];
  });
  return [{ name: 'used', node_id: null, data }];
}

/** Pure: quantile points (ns) as one series per quantile, in ms. */
export function latencySeries(points: readonly TQuantilePoint[], labels: readonly string[]): TChartSeries[] {
  if (points.length === 0) return [];
  return labels.map((name, i) => ({
    name,
    node_id: null,
    data: points.map((p): [number, number | null] => {
      const v = p.values[i];
      return [p.ts, v === null ? null : round(v / 1e6)];
    }),
  }));
}

const compact = (xs: (TChartSeries | null)[]) => xs.filter((x): x is TChartSeries => x !== null);

/**
 * Pure: `build` over each tenant's points, its series named "<name> · <tenant>" when there is more than
 * one tenant (points without a tenant are one group, named as `build` names them).
 */
export function perTenant<P extends { tenant?: string }>(
  points: readonly P[],
  build: (points: P[]) => TChartSeries[],
): TChartSeries[] {
  const groups = new Map<string | undefined, P[]>();
  for (const p of points) {
    const g = groups.get(p.tenant);
    if (g) g.push(p);
    else groups.set(p.tenant, [p]);
  }
  if (groups.size <= 1) return build([...points]);
  return [...groups.entries()].flatMap(([tenant, pts]) =>
    build(pts).map((s) => (tenant ? { ...s, name: `${s.name} · ${tenant}` } : s)),
  );
}

export interface TDbWindow {
  from: number;
  to: number;
  resolution?: TResolution;
  maxPoints?: number;
  /** The SQL panels' tenant choice (unset: every tenant summed). */
  tenant?: TDbTenant;
}

/** The sample kinds whose notices can change `probeMetrics`' answer. */
const METRIC_KINDS = ['metric'] as const satisfies readonly TSampleKind[];

type TProbe = {
  orgId: string;
  clusterId: string;
  nodeId?: number;
  from: number;
  to: number;
  resolution: TResolution;
};

/**
 * A per-window fact about the cluster's metrics, cached for live pages: a window that reaches the present asks
 * from the start of its hour, so one answer serves that hour's sliding windows until the cluster's next notice
 * of metric samples. Node and cgroup samples, a notice a second per cluster under many agents, leave it as it is.
 */
function probe<T>(deps: TDeps, q: TProbe, key: string, fetch: (from: number) => Promise<T>): Promise<T> {
  if (!deps.series || deps.series.settled(q.to)) return fetch(q.from);
  const hour = bucketMs('1h');
  const since = Math.floor(q.from / hour) * hour;
  return readLatestOf(
    deps.series,
    q.orgId,
    q.clusterId,
    `${key}|${q.nodeId ?? ''}|${q.resolution}|${since}`,
    () => fetch(since),
    { kinds: METRIC_KINDS },
  );
}

/** Whether the cluster has metrics in the window (the panels' reads are skipped when not; a false "yes" only costs the reads). */
const probeMetrics = (deps: TDeps, q: TProbe) =>
  probe(deps, { ...q, nodeId: undefined }, 'has-metrics', (from) => hasMetrics(deps.ch, { ...q, from }));

/** The tenants of the cluster's (or node's) SQL metrics, for the panels' tenant choice. */
const probeTenants = (deps: TDeps, q: TProbe) =>
  probe(deps, q, 'metric-tenants', (from) =>
    getMetricTenants(deps.ch, { ...q, from, names: STATEMENT_NAMES }),
  );

/** The database panels of a cluster (or one node) over a window. */
export async function loadDbCharts(
  deps: TDeps,
  orgId: string,
  clusterId: string,
  w: TDbWindow,
  nodeId?: number,
): Promise<TDbCharts> {
  const resolution = w.resolution ?? pickResolution(w.from, w.to);
  const stepMs = metricStepMs(resolution, w.from, w.to, w.maxPoints, MIN_RAW_STEP_MS);
  const q = { orgId, clusterId, nodeId, from: w.from, to: w.to, resolution, stepMs };
  // Points are whole steps (raw readings too): settled ones come from the series cache.
  const read = <T extends { ts: number }>(key: string, fetch: (from: number, to: number) => Promise<T[]>) =>
    readSeries(deps.series, {
      orgId,
      clusterId,
      key: `db-${key}|${nodeId ?? ''}|${resolution}|${stepMs}`,
      from: w.from,
      to: w.to,
      bucketMs: stepMs,
      fromBucket: true,
      points: pointList((p: T) => p.ts),
      pointBytes: 200,
      fetch,
    });
  const any = await probeMetrics(deps, q);
  const tenants = any ? await probeTenants(deps, q) : [];
  // A split with nothing to split by is the sum; a tenant the window lacks has no SQL lines.
  const pick = w.tenant === undefined || (w.tenant === '*' && tenants.length === 0) ? undefined
    : w.tenant === '*' ? tenants.slice(0, MAX_TENANTS) : [w.tenant]; // prettier-ignore
  const t = pick ? `|${pick.join(',')}` : '';
  const [rates, gauges, sqlGauges, lat] = any
    ? await Promise.all([
        read(`rates${t}`, (from, to) =>
          getCounterRates(deps.ch, {
            ...q,
            from,
            to,
            tenants: pick,
            names: [...STATEMENT_NAMES, ...TXN_NAMES],
          }),
        ),
        read('gauges', (from, to) => getGaugeSeries(deps.ch, { ...q, from, to, names: GAUGE_NAMES })),
        read(`sql-gauges${t}`, (from, to) =>
          getGaugeSeries(deps.ch, { ...q, from, to, tenants: pick, names: SQL_GAUGE_NAMES }),
        ),
        read(`latency${t}`, (from, to) =>
          getHistogramQuantiles(deps.ch, {
            ...q,
            from,
            to,
            tenants: pick,
            family: DB_FAMILIES.latency,
            quantiles: [0.5, 0.99],
          }),
        ),
      ])
    : [[], [], [], []];
  const g = DB_FAMILIES.gauges;
  return {
    from: w.from,
    to: w.to,
    step_ms: stepMs,
    tenants,
    statements: perTenant(rates, (pts) =>
      compact(
        Object.entries(DB_FAMILIES.statements).map(([label, name]) => summedSeries(pts, [name], label)),
      ),
    ),
    latency: perTenant(lat, (pts) => latencySeries(pts, ['p50', 'p99'])),
    transactions: perTenant(rates, (pts) =>
      compact([
        summedSeries(pts, DB_FAMILIES.transactions.commits, 'commits'),
        summedSeries(pts, DB_FAMILIES.transactions.aborts, 'aborts'),
      ]),
    ),
    connections: perTenant(sqlGauges, (pts) => perNodeSeries(pts, g.connections)),
    capacity: compact([
      summedSeries(gauges, [g.capacity], 'capacity'),
      summedSeries(gauges, [g.capacity_used], 'used'),
      summedSeries(gauges, [g.capacity_available], 'available'),
    ]),
    capacity_used_ratio: capacityRatio(gauges),
    live_bytes: perNodeSeries(gauges, g.live_bytes),
    cpu: perNodeSeries(gauges, g.cpu),
    rss: perNodeSeries(gauges, g.rss),
    replicas: perNodeSeries(gauges, g.replicas),
    leaseholders: perNodeSeries(gauges, g.leaseholders),
  };
}

/** What the database saw during a run: whole-window figures and per-step series. */
/** The cluster's SQL statements/s and service latency during [from, to) (the run page). */
export async function loadRunDbMetrics(
  deps: TDeps,
  orgId: string,
  clusterId: string,
  from: number,
  to: number,
): Promise<TRunDbMetrics> {
  const resolution = pickResolution(from, to);
  const stepMs = metricStepMs(resolution, from, to, 120, MIN_RAW_STEP_MS);
  const q = { orgId, clusterId, from, to, resolution };
  const whole = { ...q, stepMs: to - from, whole: true };
  if (!(await hasMetrics(deps.ch, q)))
    return { statements_per_s: null, p99_ms: null, p50_ms: null, step_ms: stepMs, statements: [], p99: [] };
  const [rates, lat, wholeRates, wholeLat] = await Promise.all([
    getCounterRates(deps.ch, { ...q, stepMs, names: STATEMENT_NAMES }),
    getHistogramQuantiles(deps.ch, { ...q, stepMs, family: DB_FAMILIES.latency, quantiles: [0.99] }),
    getCounterRates(deps.ch, { ...whole, names: STATEMENT_NAMES }),
    getHistogramQuantiles(deps.ch, { ...whole, family: DB_FAMILIES.latency, quantiles: [0.99, 0.5] }),
  ]);
  const sumByTs = (pts: readonly TMetricPoint[]) => {
    const m = new Map<number, number>();
    for (const p of pts) m.set(p.ts, (m.get(p.ts) ?? 0) + p.value);
    return [...m.entries()].sort((a, b) => a[0] - b[0]);
  };
  const ms = (v: number | null | undefined) => (v == null ? null : round(v / 1e6));
  const total = sumByTs(wholeRates)[0];
  return {
    statements_per_s: total ? round(total[1]) : null,
    p99_ms: ms(wholeLat[0]?.values[0]),
    p50_ms: ms(wholeLat[0]?.values[1]),
    step_ms: stepMs,
    statements: sumByTs(rates).map(([t, v]) => [t, round(v)]),
    p99: lat.map((p) => [p.ts, ms(p.values[0])]),
  };
}
