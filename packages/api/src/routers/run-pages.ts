import { z } from 'zod';
import { getRunDetail, getRunPage, getRunOutput, getWorkloadHistory } from '@clusterscope/services/runs';
import { ZRunBaselineIn, ZRunId, ZRunPageView, ZRunView, ZWorkloadHistory } from '@clusterscope/schema';
import { orgProcedure, svc } from '../trpc';

/** What the runs, run and workload pages read. */
export const runPageProcedures = {
  /** The run page in one call (run, comparison with `baseline`, environment). */
  runPage: orgProcedure
    .input(ZRunBaselineIn)
    .output(ZRunPageView)
    .query(({ ctx, input }) => getRunPage(ctx.deps, ctx.caller, input.id, input.baseline)),
  runDetail: orgProcedure.input(ZRunId).output(ZRunView).query(svc(getRunDetail, 'id')),
  rawOutput: orgProcedure.input(ZRunId).output(z.string()).query(svc(getRunOutput, 'id')),
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
