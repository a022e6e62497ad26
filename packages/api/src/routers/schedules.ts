import { z } from 'zod';
import { deleteSchedule, listSchedules, createSchedule } from '@clusterscope/services/runs';
import { ZSchedule, ZScheduleInput } from '@clusterscope/schema';
import { orgProcedure, router, svc } from '../trpc';
import { restMeta } from '../rest';

const rest = restMeta(['schedules']);

export const schedulesRouter = router({
  list: orgProcedure
    .meta(rest('GET', '/workloads/{workloadId}/schedules', "A workload's schedules with their next runs"))
    .input(z.object({ workloadId: z.string().min(1).max(128) }))
    .output(z.array(ZSchedule))
    .query(svc(listSchedules, 'workloadId')),
  create: orgProcedure
    .meta(
      rest(
        'POST',
        '/workloads/{workloadId}/schedules',
        'Run a workload on a cron schedule (5 fields, in an IANA time zone) on one or more clusters',
      ),
    )
    .input(ZScheduleInput)
    .output(ZSchedule)
    .mutation(svc(createSchedule)),
  delete: orgProcedure
    .meta(rest('DELETE', '/schedules/{id}', 'Delete a schedule'))
    .input(z.object({ id: z.string().min(1).max(64) }))
    .output(z.object({ id: z.string(), deleted: z.boolean() }))
    .mutation(svc(deleteSchedule, 'id')),
});
