import { z } from 'zod';
import {
  createCluster,
  deleteCluster,
  listClusters,
  getCluster,
  setClusterSettings,
  updateCluster,
  ZClusterInput,
} from '@clusterscope/services/tenancy';
import { ZCluster, ZClusterSettings, ZDeleted } from '@clusterscope/schema';
import { orgProcedure, router, svc } from '../trpc';

export const clustersRouter = router({
  list: orgProcedure
    .meta({ openapi: { method: 'GET', path: '/clusters', tags: ['clusters'], summary: 'List clusters' } })
    .input(z.object({}).optional())
    .output(z.array(ZCluster))
    .query(svc(listClusters)),
  get: orgProcedure
    .meta({
      openapi: { method: 'GET', path: '/clusters/{id}', tags: ['clusters'], summary: 'Get a cluster' },
    })
    .input(z.object({ id: z.string().min(1) }))
    .output(ZCluster)
    .query(svc(getCluster, 'id')),
  create: orgProcedure
    .meta({ openapi: { method: 'POST', path: '/clusters', tags: ['clusters'], summary: 'Create a cluster' } })
    .input(ZClusterInput)
    .output(ZCluster)
    .mutation(svc(createCluster)),
  update: orgProcedure
    .input(ZClusterInput.partial().extend({ id: z.string().min(1) }))
    .output(ZCluster)
    .mutation(({ ctx, input: { id, ...rest } }) => updateCluster(ctx.deps, ctx.caller, id, rest)),
  delete: orgProcedure
    .input(z.object({ id: z.string().min(1) }))
    .output(ZDeleted)
    .mutation(svc(deleteCluster, 'id')),
  setSettings: orgProcedure
    .input(ZClusterSettings)
    .output(ZClusterSettings)
    .mutation(svc(setClusterSettings)),
});
