import { z } from 'zod';
import {
  createCluster,
  deleteCluster,
  findClusters,
  getClusterById,
  setClusterSettings,
  updateCluster,
  ZClusterInput,
} from '@clusterscope/services';
import { ZCluster, ZClusterSettings } from '@clusterscope/schema';
import { orgProcedure, router } from '../trpc';

export const clustersRouter = router({
  list: orgProcedure
    .meta({ openapi: { method: 'GET', path: '/clusters', tags: ['clusters'], summary: 'List clusters' } })
    .input(z.object({}).optional())
    .output(z.array(ZCluster))
    .query(({ ctx }) => findClusters(ctx.deps, ctx.caller)),
  get: orgProcedure
    .meta({
      openapi: { method: 'GET', path: '/clusters/{id}', tags: ['clusters'], summary: 'Get a cluster' },
    })
    .input(z.object({ id: z.string().min(1) }))
    .output(ZCluster)
    .query(({ ctx, input }) => getClusterById(ctx.deps, ctx.caller, input.id)),
  create: orgProcedure
    .meta({ openapi: { method: 'POST', path: '/clusters', tags: ['clusters'], summary: 'Create a cluster' } })
    .input(ZClusterInput)
    .output(ZCluster)
    .mutation(({ ctx, input }) => createCluster(ctx.deps, ctx.caller, input)),
  update: orgProcedure
    .input(ZClusterInput.partial().extend({ id: z.string().min(1) }))
    .output(ZCluster)
    .mutation(({ ctx, input: { id, ...rest } }) => updateCluster(ctx.deps, ctx.caller, id, rest)),
  delete: orgProcedure
    .input(z.object({ id: z.string().min(1) }))
    .output(z.object({ id: z.string(), deleted: z.boolean() }))
    .mutation(({ ctx, input }) => deleteCluster(ctx.deps, ctx.caller, input.id)),
  setSettings: orgProcedure
    .input(ZClusterSettings)
    .output(ZClusterSettings)
    .mutation(({ ctx, input }) => setClusterSettings(ctx.deps, ctx.caller, input)),
});
