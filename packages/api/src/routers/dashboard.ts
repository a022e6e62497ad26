import { z } from 'zod';
import { ZEpochMsQuery, ZLiveness, ZResolution } from '@clusterscope/schema';
import {
  getClusterCharts,
  getClusterEvents,
  getClusterNodes,
  getNodeDetail,
  getOncall,
  listClusterHealth,
  NODE_STATES,
  ZChartWindow,
} from '@clusterscope/services';
import { orgProcedure, router } from '../trpc';

const ZState = z.enum(NODE_STATES);
const ZCounts = z.object({
  total: z.number(),
  live: z.number(),
  suspect: z.number(),
  dead: z.number(),
  draining: z.number(),
  stale: z.number(),
  ranges_underreplicated: z.number(),
  ranges_unavailable: z.number(),
  last_ts: z.number().nullable(),
});
const ZStatus = z.object({
  level: z.enum(['ok', 'warn', 'bad', 'stale', 'empty']),
  headline: z.string(),
  details: z.array(z.string()),
});
const ZClusterRef = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  demo: z.boolean(),
  intervalS: z.number(),
});
const ZClusterHealth = z.object({ cluster: ZClusterRef, counts: ZCounts, status: ZStatus });

const ZNode = z.object({
  node_id: z.number(),
  address: z.string(),
  locality: z.string(),
  build: z.string(),
  state: ZState,
  liveness: ZLiveness,
  last_ts: z.number(),
  started_at: z.number().nullable(),
  uptime_s: z.number(),
  replicas: z.number(),
  leaseholders: z.number(),
  leaders: z.number(),
  ranges: z.number(),
  ranges_underreplicated: z.number(),
  ranges_unavailable: z.number(),
  live_bytes: z.number(),
  capacity: z.number(),
  capacity_used: z.number(),
  capacity_available: z.number(),
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

const ZOncallNode = z.object({
  node_id: z.number(),
  address: z.string(),
  state: ZState,
  last_ts: z.number(),
  ranges_underreplicated: z.number(),
  ranges_unavailable: z.number(),
});

const ZEvent = z.object({ ts: z.number(), node_id: z.number(), from: ZLiveness, to: ZLiveness });

/** Query strings arrive as text over REST: accept numeric strings (epoch ms in the date range). */
const ZWindowInput = z.object({
  from: ZEpochMsQuery,
  to: ZEpochMsQuery,
  resolution: ZResolution.optional(),
});
/** Window checks (to after from, at most 92 days, raw at most 6 h) on an input that extends ZWindowInput. */
const checked = <T extends typeof ZWindowInput>(schema: T) =>
  schema.superRefine((w, ctx) => {
    const r = ZChartWindow.safeParse({ from: w.from, to: w.to, resolution: w.resolution });
    if (!r.success) for (const i of r.error.issues) ctx.addIssue({ ...i, code: 'custom' });
  });
const window = (w: z.infer<typeof ZWindowInput>) => ({ from: w.from, to: w.to, resolution: w.resolution });

export const dashboardRouter = router({
  /** Every cluster with its health headline. */
  clusters: orgProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/health/clusters',
        tags: ['health'],
        summary: 'Health summary of every cluster',
      },
    })
    .input(z.object({}).optional())
    .output(z.array(ZClusterHealth))
    .query(({ ctx }) => listClusterHealth(ctx.deps, ctx.caller)),

  /** Node table of one cluster. */
  nodes: orgProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/clusters/{id}/nodes',
        tags: ['health'],
        summary: 'Latest state of every node of a cluster (STALE when not heard from for 3 intervals)',
      },
    })
    .input(z.object({ id: z.string().min(1) }))
    .output(ZClusterHealth.extend({ now: z.number(), nodes: z.array(ZNode) }))
    .query(({ ctx, input }) => getClusterNodes(ctx.deps, ctx.caller, input.id)),

  /** Chart series of a cluster or one node. */
  charts: orgProcedure
    .input(
      checked(
        ZWindowInput.extend({
          id: z.string().min(1),
          nodeId: z.number().int().positive().optional(),
          /** Points per series at most: rollups are read in wider buckets to fit (default 500). */
          maxPoints: z.number().int().min(10).max(10_000).optional(),
        }),
      ),
    )
    .query(({ ctx, input }) =>
      getClusterCharts(ctx.deps, ctx.caller, {
        ...window(input),
        clusterId: input.id,
        nodeId: input.nodeId,
        maxPoints: input.maxPoints,
      }),
    ),

  /** Liveness transitions, newest first. */
  events: orgProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/clusters/{id}/events',
        tags: ['health'],
        summary: 'Node liveness transitions in a window (epoch ms), newest first',
        description:
          '`from`/`to` are epoch ms between 1970-01-01 and 2299-12-31, at most 92 days apart. `resolution=raw` is allowed only for windows of at most 6 hours (400 naming `resolution` above).',
      },
    })
    .input(
      checked(
        ZWindowInput.extend({ id: z.string().min(1), nodeId: z.coerce.number().int().positive().optional() }),
      ),
    )
    .output(z.array(ZEvent))
    .query(({ ctx, input }) =>
      getClusterEvents(ctx.deps, ctx.caller, { ...window(input), clusterId: input.id, nodeId: input.nodeId }),
    ),

  /** One node: row, state periods, recent raw samples. */
  node: orgProcedure
    .input(checked(ZWindowInput.extend({ id: z.string().min(1), nodeId: z.number().int().positive() })))
    .query(({ ctx, input }) =>
      getNodeDetail(ctx.deps, ctx.caller, { ...window(input), clusterId: input.id, nodeId: input.nodeId }),
    ),

  /** The phone view: per cluster one status and its nodes worst-first. */
  oncall: orgProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/oncall',
        tags: ['health'],
        summary: 'One status per cluster and its nodes worst-first (for on-call scripts)',
      },
    })
    .input(z.object({}).optional())
    .output(
      z.object({
        now: z.number(),
        clusters: z.array(ZClusterHealth.extend({ nodes: z.array(ZOncallNode) })),
      }),
    )
    .query(({ ctx }) => getOncall(ctx.deps, ctx.caller)),
});
