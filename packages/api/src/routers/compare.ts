import { z } from 'zod';
import {
  compareRunIds,
  compareRunWithBaseline,
  exportComparison,
  exportResults,
  exportRuns,
  findWorkloadOverview,
  getRunDetail,
  getRunOutput,
  parseExportFormat,
  getRunEnvironment,
  getWorkloadHistory,
  listRunsWithVerdicts,
  getRunListMeta,
} from '@clusterscope/services';
import { ZComparison, ZRunComparison, ZRunFilter, ZRunListMeta } from '@clusterscope/schema';
import { orgProcedure, router } from '../trpc';

const tags = ['compare'];
const ZBaselineIn = z.string().min(1).max(256).optional();
const ZRunIdsIn = z.object({
  runs: z.union([z.string().min(1).max(600), z.array(z.string().min(1).max(64)).min(1).max(8)]),
  baseline: ZBaselineIn,
});

export const compareRouter = router({
  /** CI `--fail-on-regression`: per-metric verdicts of a run against a run or a branch baseline. */
  run: orgProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/runs/{id}/compare',
        tags,
        summary: 'Compare a run with its baseline',
        description:
          'baseline = a run id, a branch, or `branch:N` (default: the branch and window of the workload\'s first threshold, else main, last 3 runs). A branch baseline pools the interval samples of the latest N succeeded runs of the same workload on that branch started before the run (env-unhealthy runs skipped; first 10% of each run dropped as warm-up). `baseline.name` names it ("main (last 3 runs)"); `rule` states the verdict rule; `warning` is set (and there is no verdict) when the runs are of different tools or workloads. `regression` is false when the run environment was unhealthy.',
      },
    })
    .input(z.object({ id: z.string().min(1).max(64), baseline: z.string().min(1).max(256).optional() }))
    .output(ZRunComparison)
    .query(({ ctx, input }) => compareRunWithBaseline(ctx.deps, ctx.caller, input.id, input.baseline)),
  runs: orgProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/compare',
        tags,
        summary: 'Compare 2-8 runs (first = baseline), or 1-8 runs with a baseline',
        description:
          'runs = comma-separated run ids. Without `baseline` the first run is the baseline; with it (a run id, branch or `branch:N`, resolved for the first run) every given run is compared with that baseline. Each compared run gets a verdict in `judgements`.',
      },
    })
    .input(z.object({ runs: z.string().min(1).max(600), baseline: ZBaselineIn }))
    .output(ZComparison)
    .query(({ ctx, input }) => compareRunIds(ctx.deps, ctx.caller, input.runs, input.baseline)),
  /** Compare page: the comparison plus every run's interval samples. */
  view: orgProcedure
    .input(ZRunIdsIn)
    .query(({ ctx, input }) => compareRunIds(ctx.deps, ctx.caller, input.runs, input.baseline)),
  runList: orgProcedure
    .input(ZRunFilter)
    .query(({ ctx, input }) => listRunsWithVerdicts(ctx.deps, ctx.caller, input)),
  /** The run list's total (pagination) and the page's stuck runs. */
  runListMeta: orgProcedure
    .input(ZRunFilter)
    .output(ZRunListMeta)
    .query(({ ctx, input }) => getRunListMeta(ctx.deps, ctx.caller, input)),
  runDetail: orgProcedure
    .input(z.object({ id: z.string().min(1).max(64) }))
    .query(({ ctx, input }) => getRunDetail(ctx.deps, ctx.caller, input.id)),
  environment: orgProcedure
    .input(z.object({ id: z.string().min(1).max(64) }))
    .query(({ ctx, input }) => getRunEnvironment(ctx.deps, ctx.caller, input.id)),
  workloads: orgProcedure.query(({ ctx }) => findWorkloadOverview(ctx.deps, ctx.caller)),
  rawOutput: orgProcedure
    .input(z.object({ id: z.string().min(1).max(64) }))
    .query(({ ctx, input }) => getRunOutput(ctx.deps, ctx.caller, input.id)),
  /** Downloads (served with Content-Disposition by apps/web /api/v1/export/*). */
  exportRuns: orgProcedure
    .input(ZRunFilter.extend({ format: z.string().optional() }))
    .query(({ ctx, input: { format, ...filter } }) =>
      exportRuns(ctx.deps, ctx.caller, filter, parseExportFormat(format)),
    ),
  exportResults: orgProcedure
    .input(z.object({ id: z.string().min(1).max(64), format: z.string().optional() }))
    .query(({ ctx, input }) =>
      exportResults(ctx.deps, ctx.caller, input.id, parseExportFormat(input.format)),
    ),
  exportComparison: orgProcedure
    .input(z.object({ runs: z.string().min(1).max(600), format: z.string().optional() }))
    .query(({ ctx, input }) =>
      exportComparison(ctx.deps, ctx.caller, input.runs, parseExportFormat(input.format)),
    ),
  history: orgProcedure
    .input(
      z.object({
        workloadId: z.string().min(1).max(64),
        limit: z.number().int().min(2).max(1000).optional(),
      }),
    )
    .query(({ ctx, input }) => getWorkloadHistory(ctx.deps, ctx.caller, input.workloadId, input.limit)),
});
