import { z } from 'zod';
import { getRunDetail, getRunPage, getRunOutput, getWorkloadHistory } from '@clusterscope/services';
import { ZRunPageView, ZRunView, ZWorkloadHistory } from '@clusterscope/schema';
import { orgProcedure } from '../trpc';

const ZId = z.object({ id: z.string().min(1).max(64) });

/** What the runs, run and workload pages read. */
export const runPageProcedures = {
  /** The run page in one call (run, comparison with `baseline`, environment). */
  runPage: orgProcedure
    .input(z.object({ id: z.string().min(1).max(64), baseline: z.string().min(1).max(256).optional() }))
    .output(ZRunPageView)
    .query(({ ctx, input }) => getRunPage(ctx.deps, ctx.caller, input.id, input.baseline)),
  runDetail: orgProcedure
    .input(ZId)
    .output(ZRunView)
    .query(({ ctx, input }) => getRunDetail(ctx.deps, ctx.caller, input.id)),
  rawOutput: orgProcedure
    .input(ZId)
    .output(z.string())
    .query(({ ctx, input }) => getRunOutput(ctx.deps, ctx.caller, input.id)),
  history: orgProcedure
    .input(
      z.object({
        workloadId: z.string().min(1).max(64),
        limit: z.number().int().min(2).max(1000).optional(),
      }),
    )
    .output(ZWorkloadHistory)
    .query(({ ctx, input }) => getWorkloadHistory(ctx.deps, ctx.caller, input.workloadId, input.limit)),
};
