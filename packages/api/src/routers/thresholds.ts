import { z } from 'zod';
import { deleteThreshold, findThresholds, saveThreshold } from '@clusterscope/services';
import { ZName, ZThreshold, ZThresholdInput } from '@clusterscope/schema';
import { orgProcedure, router } from '../trpc';
import { restMeta } from '../rest';

const rest = restMeta(['thresholds']);

export const thresholdsRouter = router({
  list: orgProcedure
    .meta(rest('GET', '/thresholds', 'List regression thresholds'))
    .input(z.object({ workloadId: ZName.optional() }))
    .output(z.array(ZThreshold))
    .query(({ ctx, input }) => findThresholds(ctx.deps, ctx.caller, input.workloadId)),
  save: orgProcedure
    .meta(
      rest(
        'POST',
        '/thresholds',
        'Create or replace the threshold of a workload metric',
        'test: percentage (limit = max % worse), z_score (max |z|), t_test (confidence 0..1 or critical t ≥ 1), iqr (k). Evaluated against the latest windowSize succeeded runs on branch.',
      ),
    )
    .input(ZThresholdInput)
    .output(ZThreshold)
    .mutation(({ ctx, input }) => saveThreshold(ctx.deps, ctx.caller, input)),
  delete: orgProcedure
    .meta(rest('DELETE', '/thresholds/{id}', 'Delete a threshold'))
    .input(z.object({ id: ZName }))
    .output(z.object({ id: z.string(), deleted: z.boolean() }))
    .mutation(({ ctx, input }) => deleteThreshold(ctx.deps, ctx.caller, input.id)),
});
