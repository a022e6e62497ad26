import { z } from 'zod';
import {
  getRunDetail,
  getRunPage,
  getRunListMeta,
  getRunOutput,
  getWorkloadHistory,
  listRunsWithVerdicts,
} from '@clusterscope/services';
import {
  ZRunFilter,
  ZRunListMeta,
  ZRunListRow,
  ZRunPageView,
  ZRunView,
  ZWorkloadHistory,
} from '@clusterscope/schema';
import { orgProcedure } from '../trpc';

const ZId = z.object({ id: z.string().min(1).max(64) });

/** What the runs, run and workload pages read. */
export const runPageProcedures = {
  runList: orgProcedure
    .input(ZRunFilter)
    .output(z.array(ZRunListRow))
    .query(({ ctx, input }) => listRunsWithVerdicts(ctx.deps, ctx.caller, input)),
  /** The run list's total (pagination) and the page's stuck runs. */
  runListMeta: orgProcedure
    .input(ZRunFilter)
    .output(ZRunListMeta)
    .query(({ ctx, input }) => getRunListMeta(ctx.deps, ctx.caller, input)),
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
