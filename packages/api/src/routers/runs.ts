import { z } from 'zod';
import {
  addRunOutput,
  addRunOutputBytes,
  addRunResults,
  addRunSamples,
  createRun,
  listRuns,
  finishRun,
  getRun,
} from '@clusterscope/services/runs';
import {
  ZMetric,
  ZRun,
  ZRunCreate,
  ZRunDetail,
  ZRunFinishIn,
  ZRunId,
  ZRunListIn,
  ZRunOutputIn,
  ZRunOutputResult,
  ZRunPage,
  ZRunResultsIn,
  ZRunSamplesIn,
} from '@clusterscope/schema';
import { router, withPermission, svc } from '../trpc';
import { restMeta } from '../rest';
import { notifying, notifyRun } from '../notify';

const rest = restMeta(['runs']);
const write = withPermission({ run: ['write'] });
const read = withPermission({ run: ['read'] });

export const runsRouter = router({
  create: write
    .meta(
      rest(
        'POST',
        '/runs',
        'Create a benchmark run',
        'Starts a run (status running) on a cluster (id or name) for a workload (by name; created with `tool` when new). With `output`, the tool is detected from it when `tool` is omitted (also for a new workload) and the output is stored as by POST /runs/{id}/output (`parsed`).',
      ),
    )
    .input(ZRunCreate)
    .output(
      z.object({
        id: z.string(),
        parsed: ZRunOutputResult.optional(),
        /** "created cluster 'x'" when this request created the cluster (the org lets CI create them). */
        notice: z.string().optional(),
      }),
    )
    .mutation(notifying(svc(createRun), (r) => [r.id, null])),
  addSamples: write
    .meta(
      rest(
        'POST',
        '/runs/{id}/samples',
        'Post live interval samples of a run',
        'Interval samples `{elapsed_s, values, ts?}` stored as bench samples. Send `batchId` to make retries idempotent.',
      ),
    )
    .input(ZRunSamplesIn)
    .output(z.object({ accepted: z.number().int(), duplicate: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      const r = await addRunSamples(ctx.deps, ctx.caller, input);
      notifyRun(ctx, ctx.caller.orgId, input.id, r.clusterId, 'samples');
      return { accepted: r.accepted, duplicate: r.duplicate };
    }),
  addOutput: write
    .meta(
      rest(
        'POST',
        '/runs/{id}/output',
        'Post the raw output of the benchmark tool',
        'Parsed by the tool parser (detected when `tool` is omitted; 422 naming what was recognised when no parser can read it). Stores the raw output, interval samples (unless posted live) and summary metrics. An interrupted output is accepted with an `incomplete` warning.',
      ),
    )
    .input(ZRunOutputIn)
    .output(ZRunOutputResult)
    .mutation(notifying(svc(addRunOutput))),
  /** The same as a raw body (the web's text/plain REST route calls it in-process; bytes are never JSON). */
  addOutputBytes: write
    .input(ZRunOutputIn.omit({ output: true }).extend({ bytes: z.instanceof(Uint8Array) }))
    .output(ZRunOutputResult)
    .mutation(notifying(svc(addRunOutputBytes))),
  addResults: write
    .meta(
      rest(
        'POST',
        '/runs/{id}/results',
        'Post structured summary metrics',
        'Metrics `{name, value, unit?, direction?}`; unit and direction default from the metric catalogue (direction is required for unknown names).',
      ),
    )
    .input(ZRunResultsIn)
    .output(z.object({ summary: z.array(ZMetric) }))
    .mutation(notifying(svc(addRunResults))),
  finish: write
    .meta(
      rest(
        'POST',
        '/runs/{id}/finish',
        'Finish a run',
        'Sets the final status and finishedAt; 409 when the run is already finished.',
      ),
    )
    .input(ZRunFinishIn)
    .output(ZRun)
    .mutation(notifying(svc(finishRun), (r) => [r.id, r.clusterId])),
  list: read
    .meta(
      rest(
        'GET',
        '/runs',
        'List runs (newest first)',
        'Filters: cluster (id or name), workload (name or id), tool, branch, status, label (`k=v`, comma-separated for several), from/to (ISO). Page with `cursor` = the previous `nextCursor`.',
      ),
    )
    .input(ZRunListIn)
    .output(ZRunPage)
    .query(svc(listRuns)),
  get: read
    .meta(rest('GET', '/runs/{id}', 'Get a run with its summary'))
    .input(ZRunId)
    .output(ZRunDetail)
    .query(svc(getRun, 'id')),
});
