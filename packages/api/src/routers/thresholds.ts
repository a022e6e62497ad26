import { z } from 'zod';
import { deleteThreshold, listThresholds, saveThreshold } from '@clusterscope/services/runs';
import { ZDeleted, ZName, ZThreshold, ZThresholdInput } from '@clusterscope/schema';
import { orgProcedure, router, svc } from '../trpc';
import { restMeta } from '../rest';

const rest = restMeta(['thresholds']);

export const thresholdsRouter = router({
  list: orgProcedure
    .meta(rest('GET', '/thresholds', 'List regression thresholds'))
    .input(z.object({ workloadId: ZName.optional() }))
    .output(z.array(ZThreshold))
    .query(({ ctx, input }) => listThresholds(ctx.deps, ctx.caller, input.workloadId)),
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
    .mutation(svc(saveThreshold)),
  delete: orgProcedure
    .meta(rest('DELETE', '/thresholds/{id}', 'Delete a threshold'))
    .input(z.object({ id: ZName }))
    .output(ZDeleted)
    .mutation(svc(deleteThreshold, 'id')),
});
