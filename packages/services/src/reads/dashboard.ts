import {
  fromColCharts,
  packCharts,
  packDbCharts,
  toColSeries,
  type TColCharts,
  type TColSeries,
} from '@clusterscope/schema';
import type {
  TChartSeries,
  TChartWindow,
  TClusterCharts,
  TClusterHealth,
  TChartsView,
  TClusterView,
  TDbCharts,
  TDbTenant,
  TNodeDetailView,
  TNodeView,
  TOncallView,
} from '@clusterscope/schema';
import { countsTowardTotals, orderOncall } from '@clusterscope/schema';
import {
  bucketMs,
  CGROUP_VALUES,
  chartStepMs,
  getCgroupSeries,
  getLatestCgroups,
  getLatestNodes,
  getLatestNodeStates,
  getNodeEvents,
  getNodeSeries,
  pickEventsSource,
  pickResolution,
  type TCgroupCols,
  type TCgroupPoint,
  type TCgroupValue,
  type TNodeEvent,
  type TNodeLatest,
  type TNodeCols,
  type TNodeSeriesMetric,
} from '@clusterscope/tsdb';
import { listClusters, getCluster } from '../tenancy/clusters';
import { loadStatusExtras } from '../health/cluster-status';
import { loadDbCharts } from '../health/db-metrics';
import type { TCaller } from '../tenancy/caller';
import type { TDeps } from '../core/deps';
import { notFound } from '../core/errors';
import { blockList, pointList, readLatestOf, readSeries } from './series-cache';
import {
  clusterStatus,
  countHealth,
  deriveNodeState,
  sortWorstFirst,
  sumAcrossNodes,
  toStatePeriods,
} from '../health/health-views';

export type { TChartSeries as TSeries, TClusterCharts, TClusterHealth, TNodeView };

type TCluster = Awaited<ReturnType<typeof getCluster>>;

const clusterInfo = (c: TCluster) => ({
  id: c.id,
  name: c.name,
  description: c.description,
  demo: c.demo,
  intervalS: c.intervalS,
});

/** Pure: table rows from latest node status and cgroup points. */
export function toNodeViews(
  nodes: readonly TNodeLatest[],
  cgroups: readonly TCgroupPoint[],
  now: number,
  intervalS: number,
): TNodeView[] {
  const lastCg = new Map<number, TCgroupPoint>();
  for (const p of cgroups) {
    if (p.node_id === null) continue;
    const prev = lastCg.get(p.node_id);
    // Prefer the newest point that has a CPU rate (the first point of a series has none).
    if (!prev || p.ts > prev.ts || (p.ts === prev.ts && prev.cpu_cores === null)) lastCg.set(p.node_id, p);
  }
  return nodes.map((n) => {
    const cg = lastCg.get(n.node_id);
    const state = deriveNodeState(n.liveness, n.ts, now, intervalS);
    return {
      node_id: n.node_id,
      address: n.address,
      locality: n.locality,
      build: n.build,
      state,
      liveness: n.liveness,
      last_ts: n.ts,
      // The node's own last status update (the cluster's clock) when its counts are no longer current.
      last_known: countsTowardTotals(state) ? null : Math.min(n.updated_at ?? n.ts, n.ts),
      started_at: n.started_at,
      uptime_s: n.uptime_s,
      replicas: n.replicas,
      leaseholders: n.replicas_leaseholders,
      leaders: n.replicas_leaders,
      ranges: n.ranges,
      ranges_underreplicated: n.ranges_underreplicated,
      ranges_unavailable: n.ranges_unavailable,
      live_bytes: n.live_bytes,
      capacity: n.capacity,
      capacity_used: n.capacity_used,
      capacity_available: n.capacity_available,
      cgroup: cg
        ? {
            ts: cg.ts,
            cpu_cores: cg.cpu_cores,
            cpu_limit_cores: cg.cpu_limit_cores,
            throttled_ratio: cg.throttled_ratio,
            mem_current: cg.mem_current,
            mem_max: cg.mem_max,
            io_read_bps: cg.io_read_bps,
            io_write_bps: cg.io_write_bps,
          }
        : null,
    };
  });
}

/**
 * Latest node states (node_latest) and cgroup readings (cgroup_latest) of a cluster of `orgId`; shared
 * until the cluster's next change notice when the app has a series cache.
 */
const readLatest = (deps: TDeps, orgId: string, clusterId: string) =>
  readLatestOf(deps.series, orgId, clusterId, 'latest', () =>
    Promise.all([getLatestNodes(deps.ch, orgId, clusterId), getLatestCgroups(deps.ch, orgId, clusterId)]),
  );

/** Latest node states of every cluster of `orgId`, by cluster id (shared as `readLatest`). */
const readOrgStates = (deps: TDeps, orgId: string) =>
  readLatestOf(deps.series, orgId, null, 'states', () => getLatestNodeStates(deps.ch, orgId, null));

/** Node table rows of a cluster row (already authorised). */
async function loadNodeViews(deps: TDeps, orgId: string, c: TCluster, now: number) {
  const [nodes, cg] = await readLatest(deps, orgId, c.id);
  return toNodeViews(nodes, cg, now, c.intervalS);
}

/** Every cluster of the caller's org with its health headline (list page, on-call). */
export async function listClusterHealth(
  deps: TDeps,
  caller: TCaller,
  now: number = Date.now(),
): Promise<TClusterHealth[]> {
  // The org's node states are read while its clusters are listed; only the caller's clusters are shown.
  const [clusters, latest, extras] = await Promise.all([
    listClusters(deps, caller),
    readOrgStates(deps, caller.orgId),
    loadStatusExtras(deps, caller, undefined, now),
  ]);
  return clusters.map((c) => {
    const views = (latest.get(c.id) ?? []).map((n) => ({
      state: deriveNodeState(n.liveness, n.ts, now, c.intervalS),
      last_ts: n.ts,
      ranges_underreplicated: n.ranges_underreplicated,
      ranges_unavailable: n.ranges_unavailable,
    }));
    const counts = countHealth(views);
    return { cluster: clusterInfo(c), counts, status: clusterStatus(counts, extras(c.id)) };
  });
}

/** The node table of one cluster (overview). */
export async function getClusterNodes(
  deps: TDeps,
  caller: TCaller,
  clusterId: string,
  now: number = Date.now(),
): Promise<TClusterHealth & { now: number; nodes: TNodeView[] }> {
  const c = await getCluster(deps, caller, clusterId);
  const [nodes, extras] = await Promise.all([
    loadNodeViews(deps, caller.orgId, c, now),
    loadStatusExtras(deps, caller, c.id, now),
  ]);
  const counts = countHealth(nodes);
  return { cluster: clusterInfo(c), counts, status: clusterStatus(counts, extras(c.id)), now, nodes };
}

const line = (name: string, node_id: number | null): TColSeries => ({ name, node_id, t: [], v: [] });

/** A limit line: only the points where the limit changes, plus the first and the last (limits rarely change). */
function limitLine(name: string, node_id: number | null, t: readonly number[], v: readonly number[]) {
  const s = line(name, node_id);
  for (let i = 0; i < t.length; i++) {
    if (i > 0 && i < t.length - 1 && Object.is(v[i], v[i - 1])) continue;
    s.t.push(t[i]);
    s.v.push(v[i]);
  }
  return s;
}

/** The node metrics of the health charts. */
const CHART_METRICS = [
  'ranges_underreplicated',
  'ranges_unavailable',
  'replicas_leaseholders',
  'dead_or_decommissioned',
] as const;
type TChartMetric = Exclude<(typeof CHART_METRICS)[number], 'dead_or_decommissioned'>;
/** The series cache's view of node blocks with `metrics`: one per node. */
const nodeBlocks = (metrics: readonly TNodeSeriesMetric[]) =>
  blockList<TNodeCols>((b) => String(b.node_id), ['t', ...metrics]);
const NODE_BLOCKS = nodeBlocks(CHART_METRICS);

/** The series cache's view of cgroup blocks: one per series and node id. */
const CGROUP_BLOCKS = blockList<TCgroupCols>(
  (b) => `${b.host}\n${b.cgroup}\n${b.node_id}`,
  ['t', ...CGROUP_VALUES],
);

/**
 * Pure: one line per node (or host) for each measure, from cgroup blocks. A node's line takes its block's
 * columns as they are (not copied; nothing changes them); two blocks of one node are joined.
 */
export function toCgroupSeries(blocks: readonly TCgroupCols[]) {
  const groups = new Map<string, TCgroupCols>();
  for (const b of blocks) {
    const name = b.node_id !== null ? `n${b.node_id}` : b.host;
    const g = groups.get(name);
    groups.set(name, g ? CGROUP_BLOCKS.join(g, b) : b);
  }
  const all = [...groups].sort(
    ([an, a], [bn, b]) => (a.node_id ?? 1e9) - (b.node_id ?? 1e9) || an.localeCompare(bn),
  );
  const lines = (k: TCgroupValue) =>
    all.map(([name, b]): TColSeries => ({ name, node_id: b.node_id, t: b.t, v: b[k] }));
  const limits = (k: TCgroupValue) => all.map(([name, b]) => limitLine(name, b.node_id, b.t, b[k]));
  return {
    cpu: lines('cpu_cores'),
    cpu_limit: limits('cpu_limit_cores'),
    throttled: lines('throttled_ratio'),
    mem: lines('mem_current'),
    mem_limit: limits('mem_max'),
    io_read: lines('io_read_bps'),
    io_write: lines('io_write_bps'),
    io_read_limit: limits('io_read_bps_limit'),
    io_write_limit: limits('io_write_bps_limit'),
  };
}

type TWindowIn = TChartWindow & { clusterId: string; nodeId?: number; tenant?: TDbTenant };

/**
 * A node's values of `m` with the points where it was DEAD or DECOMMISSIONED left out (NaN): a dead node's
 * last report repeats its old counts, and cluster charts count only current nodes (as the DB Console does).
 */
export function countedValues(b: TNodeCols, m: Exclude<TNodeSeriesMetric, 'dead_or_decommissioned'>) {
  const v = b[m] as number[];
  const out = b.dead_or_decommissioned;
  if (!out || !out.some((x) => x === 1)) return v;
  return v.map((x, i) => (out[i] === 1 ? NaN : x));
}

/** Charts of a cluster row (already authorised) or one of its nodes. */
async function loadCharts(deps: TDeps, orgId: string, c: TCluster, input: TWindowIn): Promise<TColCharts> {
  const resolution = input.resolution ?? pickResolution(input.from, input.to);
  const stepMs = chartStepMs(resolution, input.from, input.to, input.maxPoints);
  const step = resolution === 'raw' ? c.intervalS * 1000 : stepMs;
  const q = { orgId, clusterId: c.id, resolution, stepMs };
  // Settled points from the series cache (when the app has one); ClickHouse reads the rest of the window.
  const bucket = resolution === 'raw' ? 0 : Math.max(stepMs, bucketMs(resolution));
  const read = { orgId, clusterId: c.id, from: input.from, to: input.to, bucketMs: bucket };
  const [nodes, cg] = await Promise.all([
    readSeries(deps.series, {
      ...read,
      key: `node|${input.nodeId ?? ''}|${resolution}|${stepMs}`,
      fromBucket: true,
      points: NODE_BLOCKS,
      pointBytes: 40,
      fetch: async (from, to) =>
        (await getNodeSeries(deps.ch, { ...q, from, to, nodeId: input.nodeId, metrics: CHART_METRICS }))
          .nodes,
    }),
    readSeries(deps.series, {
      ...read,
      key: `cgroup|${resolution}|${stepMs}`,
      points: CGROUP_BLOCKS,
      pointBytes: 120,
      fetch: (from, to) => getCgroupSeries(deps.ch, { ...q, from, to }),
    }),
  ]);
  // A node's own page keeps its last-known values; cluster charts count current nodes only.
  const values = (b: TNodeCols, m: TChartMetric) =>
    input.nodeId === undefined ? countedValues(b, m) : (b[m] as number[]);
  const perNode = (m: TChartMetric) =>
    nodes
      .map((b): TColSeries => ({ name: `n${b.node_id}`, node_id: b.node_id, t: b.t, v: values(b, m) }))
      .filter((s) => s.v.some((x) => !Number.isNaN(x)));
  const sum = (m: TChartMetric) =>
    sumAcrossNodes(
      nodes.map((b) => ({ t: b.t, v: values(b, m) })),
      step,
    );
  const cgBlocks = input.nodeId === undefined ? cg : cg.filter((b) => b.node_id === input.nodeId);
  return {
    from: input.from,
    to: input.to,
    resolution,
    step_ms: step,
    ranges_underreplicated: sum('ranges_underreplicated'),
    ranges_unavailable: sum('ranges_unavailable'),
    leaseholders: perNode('replicas_leaseholders'),
    ...toCgroupSeries(cgBlocks),
  };
}

/** Charts of a cluster (or one node) over a window; the resolution follows the span unless forced. */
export async function getClusterCharts(
  deps: TDeps,
  caller: TCaller,
  input: TWindowIn,
): Promise<TClusterCharts> {
  const c = await getCluster(deps, caller, input.clusterId);
  return fromColCharts(await loadCharts(deps, caller.orgId, c, input));
}

/**
 * How far a cached raw events read looks back from the start of the part it reads from ClickHouse, for each
 * node's state before it (agents push every few seconds). The first read looks back an hour; so a change
 * across an agent silence of 10 min to an hour shows there, and in a cached read once its entry expires.
 */
const EVENTS_TAIL_LOOKBACK_MS = 10 * 60_000;

/** Liveness transitions of a cluster of `orgId`: the newest `limit`, oldest first. */
async function loadEvents(deps: TDeps, orgId: string, input: TWindowIn & { limit?: number }) {
  const limit = input.limit ?? 500;
  const source = pickEventsSource(input);
  const raw = source === 'raw';
  const q = { orgId, clusterId: input.clusterId, nodeId: input.nodeId, limit, source };
  // Settled transitions come from the series cache; ClickHouse reads the newer part.
  const events = await readSeries(deps.series, {
    orgId,
    clusterId: input.clusterId,
    key: `events|${source}|${input.nodeId ?? ''}|${limit}`,
    from: input.from,
    to: input.to,
    // Raw: transitions at their sample's time; 1 m rollup (windows over a day): at their minute's start.
    bucketMs: raw ? 0 : 60_000,
    fromBucket: !raw,
    points: pointList((e: TNodeEvent) => e.ts),
    pointBytes: 150,
    fetch: (from, to) =>
      getNodeEvents(deps.ch, {
        ...q,
        from,
        to,
        ...(raw && from > input.from ? { lookbackMs: EVENTS_TAIL_LOOKBACK_MS } : {}),
      }),
  });
  // A change in the minute that holds `from` is stamped `from`, as getNodeEvents stamps it.
  return events.slice(-limit).map((e) => (e.ts < input.from ? { ...e, ts: input.from } : e));
}

/** Liveness transitions in a window, newest first. */
export async function getClusterEvents(
  deps: TDeps,
  caller: TCaller,
  input: TWindowIn & { limit?: number },
): Promise<TNodeEvent[]> {
  await getCluster(deps, caller, input.clusterId);
  return (await loadEvents(deps, caller.orgId, input)).reverse();
}

/** Leaseholders from /_status/vars when the status API sent none (node_status is empty). */
function withMetricLeaseholders(charts: TColCharts, db: TDbCharts): void {
  if (charts.leaseholders.length === 0) charts.leaseholders = db.leaseholders.map(toColSeries);
}

/** Window of a page's charts (the resolution and bucket the charts will have). */
function chartWindow(c: TCluster, input: TChartWindow) {
  const resolution = input.resolution ?? pickResolution(input.from, input.to);
  const stepMs = chartStepMs(resolution, input.from, input.to, input.maxPoints);
  return { resolution, step_ms: resolution === 'raw' ? c.intervalS * 1000 : stepMs };
}

/** Health charts and database panels of a cluster row (already authorised) or one of its nodes. */
async function loadAllCharts(deps: TDeps, orgId: string, c: TCluster, input: TWindowIn) {
  const [charts, db] = await Promise.all([
    loadCharts(deps, orgId, c, input),
    loadDbCharts(deps, orgId, c.id, input, input.nodeId),
  ]);
  withMetricLeaseholders(charts, db);
  return { charts, db };
}

/**
 * The charts of the cluster or node page, packed for the wire (`unpackCharts`, `unpackDbCharts`): the
 * page renders without them and the browser fetches them next, so the HTML stays small.
 */
export async function getChartsView(deps: TDeps, caller: TCaller, input: TWindowIn): Promise<TChartsView> {
  const c = await getCluster(deps, caller, input.clusterId);
  // A live page's requests whose windows start and end in the same steps share one answer until the
  // cluster's next change notice (as Prometheus' query frontend aligns windows to the step). So raw samples
  // may start up to a step before `from` (a rollup read returns the bucket that holds it anyway), and reach
  // up to a step past `to` only for a request whose `to` is earlier than the first's.
  const w = chartWindow(c, input);
  const keyOf = (from: number, to: number) =>
    `charts|${input.nodeId ?? ''}|${input.tenant ?? ''}|${w.resolution}|${w.step_ms}|${Math.floor(from / w.step_ms)}|${Math.ceil(to / w.step_ms)}`;
  const build = (from: number, to: number) => async () => {
    const { charts, db } = await loadAllCharts(deps, caller.orgId, c, { ...input, from, to });
    return { charts: packCharts(charts), db: packDbCharts(db) };
  };
  // A window that ends now slides: after a notice the cache reads the same span up to then, before the
  // page that follows notices asks for it.
  const span = input.to - input.from;
  const view = await readLatestOf(
    deps.series,
    caller.orgId,
    c.id,
    keyOf(input.from, input.to),
    build(input.from, input.to),
    {
      to: input.to,
      slide: (t) => ({ key: keyOf(t - span, t), to: t, fetch: build(t - span, t) }),
    },
  );
  const range = { from: input.from, to: input.to };
  return { charts: { ...view.charts, ...range }, db: { ...view.db, ...range } };
}

/**
 * The cluster page in one call: headline, node table, events (newest first) and, unless `charts` is
 * false, the charts and database panels. One Postgres lookup (the cluster, with the token's
 * bound-cluster check), then the ClickHouse reads in parallel.
 */
export async function getClusterView(
  deps: TDeps,
  caller: TCaller,
  input: TChartWindow & { clusterId: string; charts?: boolean },
  now: number = Date.now(),
): Promise<TClusterView> {
  const cluster = getCluster(deps, caller, input.clusterId);
  // The org-scoped ClickHouse reads start with the cluster check (one round trip less); a failed check drops them.
  const [c, [latest, cg], events, all, extras] = await Promise.all([
    cluster,
    readLatest(deps, caller.orgId, input.clusterId),
    loadEvents(deps, caller.orgId, input),
    input.charts === false ? null : cluster.then((c) => loadAllCharts(deps, caller.orgId, c, input)),
    cluster.then((c) => loadStatusExtras(deps, caller, c.id, now)),
  ]);
  const nodes = toNodeViews(latest, cg, now, c.intervalS);
  const counts = countHealth(nodes);
  return {
    cluster: clusterInfo(c),
    counts,
    status: clusterStatus(counts, extras(c.id)),
    now,
    nodes,
    window: chartWindow(c, input),
    events: events.reverse(),
    ...(all ? { charts: packCharts(all.charts), db: all.db } : {}),
  };
}

const RECENT_METRICS = [
  'not_live',
  'replicas',
  'replicas_leaseholders',
  'ranges_underreplicated',
  'ranges_unavailable',
  'uptime_s',
] as const;
const RECENT_BLOCKS = nodeBlocks(RECENT_METRICS);

/**
 * One node in one call: its table row, state periods, events, the most recent raw samples and, unless
 * `charts` is false, its charts and database panels.
 */
export async function getNodeView(
  deps: TDeps,
  caller: TCaller,
  input: TChartWindow & { clusterId: string; nodeId: number; charts?: boolean },
  now: number = Date.now(),
): Promise<TNodeDetailView> {
  const cluster = getCluster(deps, caller, input.clusterId);
  const recentFrom = Math.max(input.from, input.to - 10 * 60_000);
  // As getClusterView: the ClickHouse reads start with the cluster check.
  const [c, [latest, cg], events, raw, all] = await Promise.all([
    cluster,
    readLatest(deps, caller.orgId, input.clusterId),
    loadEvents(deps, caller.orgId, input),
    readSeries(deps.series, {
      orgId: caller.orgId,
      clusterId: input.clusterId,
      key: `recent|${input.nodeId}`,
      from: recentFrom,
      to: input.to,
      bucketMs: 0,
      points: RECENT_BLOCKS,
      pointBytes: 60,
      fetch: async (from, to) =>
        (
          await getNodeSeries(deps.ch, {
            orgId: caller.orgId,
            clusterId: input.clusterId,
            nodeId: input.nodeId,
            from,
            to,
            resolution: 'raw',
            metrics: RECENT_METRICS,
          })
        ).nodes,
    }),
    input.charts === false ? null : cluster.then((c) => loadAllCharts(deps, caller.orgId, c, input)),
  ]);
  const node = toNodeViews(latest, cg, now, c.intervalS).find((n) => n.node_id === input.nodeId);
  if (!node) throw notFound(`node ${input.nodeId}`);
  const startState = events[0]?.from ?? node.liveness;
  // The newest 30, newest first (the read is of one node: one block at most).
  const r = raw[0];
  const at = (m: (typeof RECENT_METRICS)[number], i: number) => {
    const v = (r[m] as number[])[i];
    return Number.isNaN(v) ? null : v;
  };
  const samples = [];
  for (let i = (r?.t.length ?? 0) - 1; i >= 0 && samples.length < 30; i--)
    samples.push({
      ts: r.t[i],
      live: at('not_live', i) === 0,
      replicas: at('replicas', i),
      leaseholders: at('replicas_leaseholders', i),
      ranges_underreplicated: at('ranges_underreplicated', i),
      ranges_unavailable: at('ranges_unavailable', i),
      uptime_s: at('uptime_s', i),
    });
  return {
    now,
    cluster: clusterInfo(c),
    node,
    window: chartWindow(c, input),
    periods: toStatePeriods(events, input.from, events.length ? startState : node.liveness),
    events: [...events].reverse(),
    samples,
    ...(all ? { charts: packCharts(all.charts), db: all.db } : {}),
  };
}

/**
 * The phone view: clusters worst first (`orderOncall`: critical, warning, ok, quiet), each with one status
 * and its nodes worst-first, and the summary counts of clusters per severity and nodes per state.
 */
export async function getOncall(
  deps: TDeps,
  caller: TCaller,
  now: number = Date.now(),
): Promise<TOncallView> {
  // The org's node states are read while its clusters are listed; only the caller's clusters are shown.
  const [clusters, latest, extras] = await Promise.all([
    listClusters(deps, caller),
    readOrgStates(deps, caller.orgId),
    loadStatusExtras(deps, caller, undefined, now),
  ]);
  const out = clusters.map((c) => {
    const nodes = sortWorstFirst(
      (latest.get(c.id) ?? []).map((n) => ({
        node_id: n.node_id,
        address: n.address,
        state: deriveNodeState(n.liveness, n.ts, now, c.intervalS),
        last_ts: n.ts,
        ranges_underreplicated: n.ranges_underreplicated,
        ranges_unavailable: n.ranges_unavailable,
      })),
    );
    const counts = countHealth(nodes);
    const status = clusterStatus(counts, extras(c.id));
    return {
      name: c.name,
      level: status.level,
      states: nodes.map((n) => n.state),
      ranges_unavailable: counts.ranges_unavailable,
      ranges_underreplicated: counts.ranges_underreplicated,
      last_ts: counts.last_ts,
      view: { cluster: clusterInfo(c), counts, status, nodes },
    };
  });
  const ordered = orderOncall(out, now);
  return {
    now,
    summary: ordered.summary,
    clusters: ordered.clusters.map((c) => ({ ...c.view, severity: c.severity })),
  };
}
