import { z } from 'zod';
import {
  ZChartWindow,
  ZEpochMsQuery,
  ZResolution,
  ZClusterCharts,
  ZClusterHealth,
  ZChartsView,
  ZClusterView,
  ZNodeDetailView,
  ZNodeEventView,
  ZNodeView,
  ZOncallView,
} from '@clusterscope/schema';
import {
  getClusterCharts,
  getClusterEvents,
  getClusterNodes,
  getChartsView,
  getClusterView,
  getNodeView,
  getOncall,
  listClusterHealth,
} from '@clusterscope/services';
import { orgProcedure, router } from '../trpc';

/** Query strings arrive as text over REST: numeric strings in the date range. */
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
    .output(ZClusterHealth.extend({ now: z.number(), nodes: z.array(ZNodeView) }))
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
    .output(ZClusterCharts)
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
    .output(z.array(ZNodeEventView))
    .query(({ ctx, input }) =>
      getClusterEvents(ctx.deps, ctx.caller, { ...window(input), clusterId: input.id, nodeId: input.nodeId }),
    ),

  /** The cluster page: headline, node table, events and (unless `charts: false`) charts in one call. */
  clusterView: orgProcedure
    .input(checked(ZWindowInput.extend({ id: z.string().min(1), charts: z.boolean().optional() })))
    .output(ZClusterView)
    .query(({ ctx, input }) =>
      getClusterView(ctx.deps, ctx.caller, { ...window(input), clusterId: input.id, charts: input.charts }),
    ),

  /** The node page: row, state periods, events, recent raw samples and (unless `charts: false`) charts. */
  nodeView: orgProcedure
    .input(
      checked(
        ZWindowInput.extend({
          id: z.string().min(1),
          nodeId: z.number().int().positive(),
          charts: z.boolean().optional(),
        }),
      ),
    )
    .output(ZNodeDetailView)
    .query(({ ctx, input }) =>
      getNodeView(ctx.deps, ctx.caller, {
        ...window(input),
        clusterId: input.id,
        nodeId: input.nodeId,
        charts: input.charts,
      }),
    ),

  /** The charts and database panels of the cluster or node page, packed (fetched after the page). */
  chartsView: orgProcedure
    .input(
      checked(ZWindowInput.extend({ id: z.string().min(1), nodeId: z.number().int().positive().optional() })),
    )
    .output(ZChartsView)
    .query(({ ctx, input }) =>
      getChartsView(ctx.deps, ctx.caller, { ...window(input), clusterId: input.id, nodeId: input.nodeId }),
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
    .output(ZOncallView)
    .query(({ ctx }) => getOncall(ctx.deps, ctx.caller)),
});
