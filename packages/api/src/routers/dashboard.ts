import { z } from 'zod';
import {
  ZChartWindow,
  ZEpochMsQuery,
  ZResolution,
  ZClusterCharts,
  ZClusterHealth,
  ZChartsView,
  ZDbTenant,
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
} from '@clusterscope/services/reads';
import { orgProcedure, router, svc } from '../trpc';
import { restMeta } from '../rest';

const rest = restMeta(['health']);

/** Query strings arrive as text over REST: numeric strings in the date range. */
const ZWindowInput = z.object({
  from: ZEpochMsQuery,
  to: ZEpochMsQuery,
  resolution: ZResolution.optional(),
});
/** Window checks (to after from, at most 92 days, raw at most 6 h) on an input that extends ZWindowInput. */
export const checked = <T extends typeof ZWindowInput>(schema: T) =>
  schema.superRefine((w, ctx) => {
    const r = ZChartWindow.safeParse({ from: w.from, to: w.to, resolution: w.resolution });
    if (!r.success) for (const i of r.error.issues) ctx.addIssue({ ...i, code: 'custom' });
  });
/** A window of one cluster (`id`), and of one of its nodes where the input has `nodeId`. */
export const ZClusterWindow = ZWindowInput.extend({ id: z.string().min(1) });
export const scope = (w: z.infer<typeof ZClusterWindow> & { nodeId?: number }) => ({
  from: w.from,
  to: w.to,
  resolution: w.resolution,
  clusterId: w.id,
  nodeId: w.nodeId,
});

export const dashboardRouter = router({
  /** Every cluster with its health headline. */
  clusters: orgProcedure
    .meta(rest('GET', '/health/clusters', 'Health summary of every cluster'))
    .input(z.object({}).optional())
    .output(z.array(ZClusterHealth))
    .query(({ ctx }) => listClusterHealth(ctx.deps, ctx.caller)),

  /** Node table of one cluster. */
  nodes: orgProcedure
    .meta(
      rest(
        'GET',
        '/clusters/{id}/nodes',
        'Latest state of every node of a cluster (STALE when not heard from for 3 intervals)',
      ),
    )
    .input(z.object({ id: z.string().min(1) }))
    .output(ZClusterHealth.extend({ now: z.number(), nodes: z.array(ZNodeView) }))
    .query(svc(getClusterNodes, 'id')),

  /** Chart series of a cluster or one node. */
  charts: orgProcedure
    .input(
      checked(
        ZClusterWindow.extend({
          nodeId: z.number().int().positive().optional(),
          /** Points per series at most: rollups are read in wider buckets to fit (default 500). */
          maxPoints: z.number().int().min(10).max(10_000).optional(),
        }),
      ),
    )
    .output(ZClusterCharts)
    .query(({ ctx, input }) =>
      getClusterCharts(ctx.deps, ctx.caller, { ...scope(input), maxPoints: input.maxPoints }),
    ),

  /** Liveness transitions, newest first. */
  events: orgProcedure
    .meta(
      rest(
        'GET',
        '/clusters/{id}/events',
        'Node liveness transitions in a window (epoch ms), newest first',
        '`from`/`to` are epoch ms between 1970-01-01 and 2299-12-31, at most 92 days apart. `resolution=raw` is allowed only for windows of at most 6 hours (400 naming `resolution` above).',
      ),
    )
    .input(checked(ZClusterWindow.extend({ nodeId: z.coerce.number().int().positive().optional() })))
    .output(z.array(ZNodeEventView))
    .query(({ ctx, input }) => getClusterEvents(ctx.deps, ctx.caller, scope(input))),

  /** The cluster page: headline, node table, events and (unless `charts: false`) charts in one call. */
  clusterView: orgProcedure
    .input(checked(ZClusterWindow.extend({ charts: z.boolean().optional() })))
    .output(ZClusterView)
    .query(({ ctx, input }) =>
      getClusterView(ctx.deps, ctx.caller, { ...scope(input), charts: input.charts }),
    ),

  /** The node page: row, state periods, events, recent raw samples and (unless `charts: false`) charts. */
  nodeView: orgProcedure
    .input(
      checked(ZClusterWindow.extend({ nodeId: z.number().int().positive(), charts: z.boolean().optional() })),
    )
    .output(ZNodeDetailView)
    .query(({ ctx, input }) =>
      getNodeView(ctx.deps, ctx.caller, { ...scope(input), nodeId: input.nodeId, charts: input.charts }),
    ),

  /** The charts and database panels of the cluster or node page, packed (fetched after the page). */
  chartsView: orgProcedure
    .input(
      checked(
        ZClusterWindow.extend({
          nodeId: z.number().int().positive().optional(),
          tenant: ZDbTenant.optional(),
        }),
      ),
    )
    .output(ZChartsView)
    .query(({ ctx, input }) =>
      getChartsView(ctx.deps, ctx.caller, { ...scope(input), tenant: input.tenant }),
    ),

  /** The phone view: per cluster one status and its nodes worst-first. */
  oncall: orgProcedure
    .meta(rest('GET', '/oncall', 'One status per cluster and its nodes worst-first (for on-call scripts)'))
    .input(z.object({}).optional())
    .output(ZOncallView)
    .query(({ ctx }) => getOncall(ctx.deps, ctx.caller)),
});
