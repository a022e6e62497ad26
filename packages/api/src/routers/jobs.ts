import { z } from 'zod';
import {
  cancelRun,
  claimJob,
  finishJob,
  getRunProgress,
  postJobOutput,
  renewLease,
} from '@clusterscope/services';
import {
  ZJobClaimIn,
  ZJobClaimOut,
  ZJobFinishIn,
  ZJobLeaseIn,
  ZJobLeaseOut,
  ZJobOutputIn,
  ZRun,
  ZRunCancelled,
  ZRunOutputResult,
  ZRunProgress,
} from '@clusterscope/schema';
import { agentProcedure, router, withPermission, type TContext } from '../trpc';
import { notify } from '../notify';

const tags = ['agent jobs'];

const notifyRun = (ctx: TContext, orgId: string, runId: string) =>
  notify(ctx, { orgId, topic: 'runs', runId });

/** The agent side of the job queue (agent credentials only), plus cancel and progress for the UI. */
export const jobsRouter = router({
  claim: agentProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/agent/jobs',
        tags,
        summary: 'Long-poll for a job (agents)',
        description:
          "Agent credential only (Settings → Agents); other tokens and sessions get 403. `agent` is optional and, when sent, must be the credential's agent. Waits up to `wait` s for a queued run of the agent's enrolled cluster that its tools can run (heartbeat capabilities minus `disabled`), claims it (SELECT … FOR UPDATE SKIP LOCKED) with a lease of `lease` s. `{job: null}` when none came. At most 2 concurrent long-polls per agent: a third gets 429 with Retry-After.",
      },
    })
    .input(ZJobClaimIn)
    .output(ZJobClaimOut)
    .query(({ ctx, input }) => claimJob(ctx.deps, ctx.caller, input)),
  lease: agentProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/agent/jobs/{id}/lease',
        tags,
        summary: 'Renew the lease of a claimed job (agents)',
        description:
          '`running: true` once the tool started. Answers `cancelRequested`; 409 when the agent no longer holds the run (stop the tool).',
      },
    })
    .input(ZJobLeaseIn)
    .output(ZJobLeaseOut)
    .mutation(async ({ ctx, input }) => {
      const r = await renewLease(ctx.deps, ctx.caller, input);
      if (input.running) notifyRun(ctx, ctx.caller.orgId, input.id);
      return r;
    }),
  output: agentProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/agent/jobs/{id}/output',
        tags,
        summary: "Post a job's raw tool output (agents)",
      },
    })
    .input(ZJobOutputIn)
    .output(ZRunOutputResult)
    .mutation(async ({ ctx, input }) => {
      const r = await postJobOutput(ctx.deps, ctx.caller, input);
      notifyRun(ctx, ctx.caller.orgId, input.id);
      return r;
    }),
  finish: agentProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/agent/jobs/{id}/finish',
        tags,
        summary: 'Finish a job (agents)',
        description: 'status succeeded | failed | cancelled | timed_out; releases the lease.',
      },
    })
    .input(ZJobFinishIn)
    .output(ZRun)
    .mutation(async ({ ctx, input }) => {
      const r = await finishJob(ctx.deps, ctx.caller, input);
      notifyRun(ctx, ctx.caller.orgId, input.id);
      return r;
    }),
  cancel: withPermission({ run: ['cancel'] })
    .meta({
      openapi: {
        method: 'POST',
        path: '/runs/{id}/cancel',
        tags: ['runs'],
        summary: 'Cancel a queued or running run',
        description:
          'A queued run ends `cancelled` at once; a claimed/running one is flagged and its agent stops the tool (SIGINT, then SIGKILL) on its next lease renewal.',
      },
    })
    .input(z.object({ id: z.string().min(1).max(64) }))
    .output(ZRunCancelled)
    .mutation(async ({ ctx, input }) => {
      const r = await cancelRun(ctx.deps, ctx.caller, input.id);
      notifyRun(ctx, ctx.caller.orgId, input.id);
      return r;
    }),
  progress: withPermission({ run: ['read'] })
    .meta({
      openapi: {
        method: 'GET',
        path: '/runs/{id}/progress',
        tags: ['runs'],
        summary: 'Status, agent, lease and live sample count of a run',
      },
    })
    .input(z.object({ id: z.string().min(1).max(64) }))
    .output(ZRunProgress)
    .query(({ ctx, input }) => getRunProgress(ctx.deps, ctx.caller, input.id)),
});
