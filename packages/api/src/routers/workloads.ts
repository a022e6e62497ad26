import { z } from 'zod';
import {
  createWorkload,
  deleteWorkload,
  listWorkloads,
  getWorkload,
  startWorkloadRun,
  updateWorkload,
} from '@clusterscope/services/runs';
import {
  ZRunStarted,
  ZWorkload,
  ZWorkloadCreate,
  ZWorkloadId,
  ZWorkloadPatch,
  ZWorkloadStart,
} from '@clusterscope/schema';
import { router, withPermission, svc } from '../trpc';
import { restMeta } from '../rest';
import { notify } from '../notify';

const rest = restMeta(['workloads']);
const read = withPermission({ workload: ['read'] });
const write = withPermission({ workload: ['write'] });
const start = withPermission({ run: ['start'] });

export const workloadsRouter = router({
  list: read
    .meta(rest('GET', '/workloads', 'List workloads'))
    .input(z.object({}).optional())
    .output(z.array(ZWorkload))
    .query(svc(listWorkloads)),
  get: read
    .meta(rest('GET', '/workloads/{id}', 'Get a workload (id or name)'))
    .input(ZWorkloadId)
    .output(ZWorkload)
    .query(svc(getWorkload, 'id')),
  create: write
    .meta(
      rest(
        'POST',
        '/workloads',
        'Create a workload',
        'tool ∈ sysbench, pgbench, cockroach-workload, fio, wrk, hey; `params` are validated per tool (422 naming the field); `target` is a connection string/URL, an absolute path (fio) or `secret:<name>` resolved by the agent.',
      ),
    )
    .input(ZWorkloadCreate)
    .output(ZWorkload)
    .mutation(svc(createWorkload)),
  update: write
    .meta(rest('PATCH', '/workloads/{id}', 'Edit a workload (bumps its version)'))
    .input(ZWorkloadPatch)
    .output(ZWorkload)
    .mutation(svc(updateWorkload)),
  delete: write
    .meta(rest('DELETE', '/workloads/{id}', 'Delete a workload'))
    .input(ZWorkloadId)
    .output(z.object({ id: z.string() }))
    .mutation(svc(deleteWorkload, 'id')),
  start: start
    .meta(
      rest(
        'POST',
        '/workloads/{id}/runs',
        'Queue a run of a workload for an agent',
        "Checks the cluster's latest health first: 409 with the reason when a node is not LIVE or ranges are unavailable, unless `force` (the run is then labelled forced=true). A cluster without node data is not gated. An agent of the cluster with the tool claims the run.",
      ),
    )
    .input(ZWorkloadStart)
    .output(ZRunStarted)
    .mutation(async ({ ctx, input }) => {
      const r = await startWorkloadRun(ctx.deps, ctx.caller, input);
      notify(ctx, { orgId: ctx.caller.orgId, topic: 'runs', runId: r.id });
      notify(ctx, { orgId: ctx.caller.orgId, topic: 'jobs', runId: r.id });
      return r;
    }),
});
