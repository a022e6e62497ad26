/**
 * View-models of the health pages: what the cluster, node and on-call pages render, defined once for
 * the services (return types), the API (`.output()`) and the web app (chart builders, components).
 */
import { z } from 'zod';
import { dbChartsOf, healthChartsOf } from './chart-shape';
import { ZPackedCharts, ZPackedDbCharts } from './chart-pack';
import { RESOLUTIONS, ZLiveness } from './common';
import { NODE_STATES, CLUSTER_SEVERITIES } from './health';
import { ZSeverity } from './alerting';
import { ZInputState } from './ingest';

export const ZNodeState = z.enum(NODE_STATES);

export const ZHealthCounts = z.object({
  /** Nodes not decommissioned. */
  total: z.number(),
  live: z.number(),
  dead: z.number(),
  /** DRAINING or DECOMMISSIONING. */
  draining: z.number(),
  stale: z.number(),
  /** Nodes per displayed state (the words and colours of packages/schema/src/health.ts), DECOMMISSIONED included. */
  states: z.record(ZNodeState, z.number()),
  ranges_underreplicated: z.number(),
  ranges_unavailable: z.number(),
  /** Newest sample of any node; null when the cluster never reported. */
  last_ts: z.number().nullable(),
});
export type THealthCounts = z.infer<typeof ZHealthCounts>;

/** The cluster's firing alerts as its status counts them. */
export const ZStatusAlerts = z.object({
  /** Firing and not silenced: these raise the level. */
  firing: z.number(),
  /** Firing but silenced: shown, never raising the level. */
  silenced: z.number(),
  /** The worst unsilenced firing alert (severity, then oldest). */
  worst: z.object({ id: z.string(), severity: ZSeverity, summary: z.string() }).nullable(),
});
export type TStatusAlerts = z.infer<typeof ZStatusAlerts>;

/** An agent input whose collections fail, by agent and input name. */
export const ZFailingInput = ZInputState.omit({ state: true }).extend({ agent: z.string() });
export type TFailingInput = z.infer<typeof ZFailingInput>;

/**
 * The one status of a cluster (`clusterStatus`): the worst active problem among liveness, range health,
 * failing agent inputs and firing unsilenced alerts. Every page and REST answer shows this object.
 */
export const ZClusterStatus = z.object({
  level: z.enum(['ok', 'warn', 'bad', 'stale', 'empty']),
  /** One short line for a phone: "All 5 live", "1 dead", "2 alerts firing · worst: …". */
  headline: z.string(),
  /** Secondary facts: ranges, draining nodes, alerts, failing inputs. */
  details: z.array(z.string()),
  alerts: ZStatusAlerts,
  inputs: z.array(ZFailingInput),
});
export type TClusterStatus = z.infer<typeof ZClusterStatus>;
export type TStatusLevel = TClusterStatus['level'];

export const ZClusterRef = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  demo: z.boolean(),
  intervalS: z.number(),
});

/** A cluster as listed (settings, REST `GET /clusters`). */
export const ZCluster = ZClusterRef.extend({ createdAt: z.date() });
export type TCluster = z.infer<typeof ZCluster>;
/** Org setting: CI may name a cluster that does not exist yet (created and audited). */
export const ZClusterSettings = z.object({ autoCreate: z.boolean() });

export const ZClusterHealth = z.object({
  cluster: ZClusterRef,
  counts: ZHealthCounts,
  status: ZClusterStatus,
});
export type TClusterHealth = z.infer<typeof ZClusterHealth>;

/** One row of the node table: latest status, derived state and the node's latest cgroup reading. */
export const ZNodeView = z.object({
  node_id: z.number(),
  address: z.string(),
  locality: z.string(),
  build: z.string(),
  state: ZNodeState,
  liveness: ZLiveness,
  last_ts: z.number(),
  /**
   * Set when the counts below are not current (STALE, DEAD or DECOMMISSIONED: `countsTowardTotals`): epoch ms
   * they were last known at. Null while they count toward the cluster's totals.
   */
  last_known: z.number().nullable(),
  started_at: z.number().nullable(),
  uptime_s: z.number(),
  /** Counts below are null when the source did not report them (unknown, shown as —). */
  replicas: z.number().nullable(),
  leaseholders: z.number().nullable(),
  leaders: z.number().nullable(),
  ranges: z.number().nullable(),
  ranges_underreplicated: z.number().nullable(),
  ranges_unavailable: z.number().nullable(),
  live_bytes: z.number().nullable(),
  capacity: z.number().nullable(),
  capacity_used: z.number().nullable(),
  capacity_available: z.number().nullable(),
  /** Latest cgroup reading tied to this node (null without cgroup data). */
  cgroup: z
    .object({
      ts: z.number(),
      cpu_cores: z.number().nullable(),
      cpu_limit_cores: z.number().nullable(),
      throttled_ratio: z.number().nullable(),
      mem_current: z.number(),
      mem_max: z.number().nullable(),
      io_read_bps: z.number().nullable(),
      io_write_bps: z.number().nullable(),
    })
    .nullable(),
});
export type TNodeView = z.infer<typeof ZNodeView>;

const ZPoint = z.tuple([z.number(), z.number().nullable()]);

/** One line of a chart: "n3" for a node, the host otherwise. */
export const ZChartSeries = z.object({
  name: z.string(),
  node_id: z.number().nullable(),
  data: z.array(ZPoint),
});
export type TChartSeries = z.infer<typeof ZChartSeries>;

/** The six health charts of a cluster (or one node) over a window. */
export const ZClusterCharts = healthChartsOf(z.array(z.tuple([z.number(), z.number()])), ZChartSeries);
export type TClusterCharts = z.infer<typeof ZClusterCharts>;

/**
 * Database panels (DB Console Overview/SQL equivalents) from the Prometheus series the agent's
 * `prometheus` input scrapes from each node's /_status/vars; the families each reads are listed in
 * packages/tsdb/README.md. Empty arrays: no such series in the window (the input is off, or the
 * target does not export them). On the node page every series is that node's.
 */
export const ZDbCharts = dbChartsOf(ZChartSeries);
export type TDbCharts = z.infer<typeof ZDbCharts>;

/** A liveness transition. */
export const ZNodeEventView = z.object({
  ts: z.number(),
  node_id: z.number(),
  from: ZLiveness,
  to: ZLiveness,
});

/** Resolution and point spacing of a page's charts (known before the charts arrive). */
export const ZChartsWindow = z.object({ resolution: z.enum(RESOLUTIONS), step_ms: z.number() });

/**
 * The cluster page: headline, node table, chart window, liveness events (newest first) and, unless asked
 * without, the charts (packed: `unpackCharts`) and database panels.
 */
export const ZClusterView = ZClusterHealth.extend({
  now: z.number(),
  nodes: z.array(ZNodeView),
  window: ZChartsWindow,
  charts: ZPackedCharts.optional(),
  events: z.array(ZNodeEventView),
  db: ZDbCharts.optional(),
});
export type TClusterView = z.infer<typeof ZClusterView>;

export const ZNodeSample = z.object({
  ts: z.number(),
  live: z.boolean(),
  replicas: z.number().nullable(),
  leaseholders: z.number().nullable(),
  ranges_underreplicated: z.number().nullable(),
  ranges_unavailable: z.number().nullable(),
  uptime_s: z.number().nullable(),
});

export const ZStatePeriod = z.object({
  state: ZLiveness,
  from: z.number(),
  /** null = still in this state at the end of the window. */
  to: z.number().nullable(),
});
export type TStatePeriod = z.infer<typeof ZStatePeriod>;

/** The node page: its table row, state periods, events (newest first), recent raw samples and charts. */
export const ZNodeDetailView = z.object({
  now: z.number(),
  cluster: ZClusterRef,
  node: ZNodeView,
  periods: z.array(ZStatePeriod),
  events: z.array(ZNodeEventView),
  window: ZChartsWindow,
  samples: z.array(ZNodeSample),
  charts: ZPackedCharts.optional(),
  db: ZDbCharts.optional(),
});
export type TNodeDetailView = z.infer<typeof ZNodeDetailView>;

/** The charts of a cluster or node page, packed for the browser (fetched after the page renders). */
export const ZChartsView = z.object({ charts: ZPackedCharts, db: ZPackedDbCharts });
export type TChartsView = z.infer<typeof ZChartsView>;

export const ZOncallNode = z.object({
  node_id: z.number(),
  address: z.string(),
  state: ZNodeState,
  last_ts: z.number(),
  ranges_underreplicated: z.number().nullable(),
  ranges_unavailable: z.number().nullable(),
});

export const ZClusterSeverity = z.enum(CLUSTER_SEVERITIES);

/**
 * The phone view: clusters worst first (critical, warning, ok, then quiet: never reported or silent for
 * long), each with one status and its nodes worst-first, and a summary of clusters per severity and nodes
 * per state.
 */
export const ZOncallView = z.object({
  now: z.number(),
  summary: z.object({
    clusters: z.record(ZClusterSeverity, z.number()),
    nodes: z.record(ZNodeState, z.number()),
  }),
  clusters: z.array(ZClusterHealth.extend({ severity: ZClusterSeverity, nodes: z.array(ZOncallNode) })),
});
export type TOncallView = z.infer<typeof ZOncallView>;
