import { z } from 'zod';
import { compareRunIds, compareRunWithBaseline, getRunReport } from '@clusterscope/services/runs';
import {
  ZComparison,
  ZComparisonView,
  ZRunBaselineIn,
  ZRunCompareIn,
  ZRunComparison,
  ZRunReport,
  ZRunReportIn,
} from '@clusterscope/schema';
import { orgProcedure } from '../trpc';
import { restMeta } from '../rest';

const rest = restMeta(['compare']);
const ZBaselineIn = ZRunBaselineIn.shape.baseline;
const ZRunIdsIn = z.object({
  runs: z.union([z.string().min(1).max(600), z.array(z.string().min(1).max(64)).min(1).max(8)]),
  baseline: ZBaselineIn,
});

/** Comparisons of runs with each other or with a baseline (REST for CI, and the compare page). */
export const compareProcedures = {
  /** CI `--fail-on-regression`: per-metric verdicts of a run against a run or a branch baseline. */
  run: orgProcedure
    .meta(
      rest(
        'GET',
        '/runs/{id}/compare',
        'Compare a run with its baseline',
        'baseline = a run id, a branch, or `branch:N` (default: the branch and window of the workload\'s first threshold, else main, last 3 runs). A branch baseline pools the interval samples of the latest N succeeded runs of the same workload on that branch started before the run (env-unhealthy runs skipped; first 10% of each run dropped as warm-up). `baseline.name` names it ("main (last 3 runs)"); `rule` states the verdict rule; `warning` is set (and there is no verdict) when the runs are of different tools or workloads. `regression` is false when the run environment was unhealthy. Each verdict names its metric `kind`, its `test` and its `evidence`; only verdicts with `judged` count. verdictMetrics = comma-separated metric names and kinds (rate, latency, error_rate, count, setup, duration) that can make the verdict (default: the workload\'s, else rates, latencies and error rates).',
      ),
    )
    .input(ZRunCompareIn)
    .output(ZRunComparison)
    .query(({ ctx, input }) =>
      compareRunWithBaseline(ctx.deps, ctx.caller, input.id, input.baseline, {
        verdictMetrics: input.verdictMetrics,
      }),
    ),
  /** The one report CI prints, comments and summarises (the CLI renders nothing of its own). */
  report: orgProcedure
    .meta(
      rest(
        'GET',
        '/runs/{id}/report',
        "A run's comparison report (markdown or JSON)",
        "The comparison of the run with `baseline` (as for /runs/{id}/compare) rendered once: `markdown` is what the job summary, pull-request comment and merge-request note show, `text` what the CLI prints; `metrics` lists each metric with its test, or why it was not judged. `format=markdown` answers the markdown alone as text/markdown. `start_point` (a pull request's base branch): without `baseline`, the run's own branch once it has runs, else this branch; `baseline_note` says which.",
      ),
    )
    .input(ZRunReportIn)
    .output(ZRunReport)
    .query(({ ctx, input }) =>
      getRunReport(ctx.deps, ctx.caller, input.id, input.baseline, input.start_point),
    ),
  runs: orgProcedure
    .meta(
      rest(
        'GET',
        '/compare',
        'Compare 2-8 runs (first = baseline), or 1-8 runs with a baseline',
        'runs = comma-separated run ids. Without `baseline` the first run is the baseline; with it (a run id, branch or `branch:N`, resolved for the first run) every given run is compared with that baseline. Each compared run gets a verdict in `judgements`.',
      ),
    )
    .input(z.object({ runs: z.string().min(1).max(600), baseline: ZBaselineIn }))
    .output(ZComparison)
    .query(({ ctx, input }) => compareRunIds(ctx.deps, ctx.caller, input.runs, input.baseline)),
  /** Compare page: the comparison plus every run's interval samples. */
  view: orgProcedure
    .input(ZRunIdsIn)
    .output(ZComparisonView)
    .query(({ ctx, input }) => compareRunIds(ctx.deps, ctx.caller, input.runs, input.baseline)),
};
