import { z } from 'zod';
import { ackRegressionAlert, findRegressionAlerts, triageAlert } from '@clusterscope/services/runs';
import { ZRegressionAlert, ZRegressionAlertTriage } from '@clusterscope/schema';
import { orgProcedure, router, svc } from '../trpc';
import { restMeta } from '../rest';

const rest = restMeta(['alerts']);

export const regressionAlertsRouter = router({
  list: orgProcedure
    .meta(rest('GET', '/alerts', 'List regression alerts, newest first'))
    .input(
      z.object({
        workloadId: z.string().min(1).max(64).optional(),
        runId: z.string().min(1).max(64).optional(),
        unacknowledged: z.enum(['true', 'false']).optional(),
        limit: z.coerce.number().int().min(1).max(500).optional(),
      }),
    )
    .output(z.array(ZRegressionAlert))
    .query(({ ctx, input }) =>
      findRegressionAlerts(ctx.deps, ctx.caller, {
        ...input,
        unacknowledged: input.unacknowledged === 'true',
      }),
    ),
  ack: orgProcedure
    .meta(rest('POST', '/alerts/{id}/ack', 'Acknowledge an alert'))
    .input(z.object({ id: z.string().min(1).max(64) }))
    .output(ZRegressionAlert)
    .mutation(svc(ackRegressionAlert, 'id')),
  triage: orgProcedure
    .meta(
      rest(
        'PATCH',
        '/alerts/{id}',
        'Triage a regression alert: status (invalid = false positive, expected = accepted change, the new baseline), note, issue link',
      ),
    )
    .input(ZRegressionAlertTriage)
    .output(ZRegressionAlert)
    .mutation(svc(triageAlert)),
});
