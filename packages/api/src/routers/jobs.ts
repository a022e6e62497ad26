import {
  cancelRun,
  claimJob,
  finishJob,
  getRunProgress,
  postJobOutput,
  renewLease,
} from '@clusterscope/services/jobs';
import {
  ZJobClaimIn,
  ZJobClaimOut,
  ZJobFinishIn,
  ZJobLeaseIn,
  ZJobLeaseOut,
  ZJobOutputIn,
  ZRun,
  ZRunCancelled,
  ZRunId,
  ZRunOutputResult,
  ZRunProgress,
} from '@clusterscope/schema';
import { agentProcedure, router, withPermission, svc } from '../trpc';
import { restMeta } from '../rest';
import { notifying } from '../notify';

const rest = restMeta(['agent jobs']);
const runsRest = restMeta(['runs']);

/** The agent side of the job queue (agent credentials only), plus cancel and progress for the UI. */
export const jobsRouter = router({
  claim: agentProcedure
    .meta(
      rest(
        'GET',
        '/agent/jobs',
        'Long-poll for a job (agents)',
        "Agent credential only (Settings → Agents); other tokens and sessions get 403. `agent` is optional and, when sent, must be the credential's agent. Waits up to `wait` s for a queued run of the agent's enrolled cluster that its tools can run (heartbeat capabilities minus `disabled`), claims it (SELECT … FOR UPDATE SKIP LOCKED) with a lease of `lease` s. `{job: null}` when none came. At most 2 concurrent long-polls per agent: a third gets 429 with Retry-After.",
      ),
    )
    .input(ZJobClaimIn)
    .output(ZJobClaimOut)
    .query(svc(claimJob)),
  lease: agentProcedure
    .meta(
      rest(
        'POST',
        '/agent/jobs/{id}/lease',
        'Renew the lease of a claimed job (agents)',
        '`running: true` once the tool started. Answers `cancelRequested`; 409 when the agent no longer holds the run (stop the tool).',
      ),
    )
    .input(ZJobLeaseIn)
    .output(ZJobLeaseOut)
    .mutation(notifying(svc(renewLease), (_, input) => (input.running ? [input.id, null] : null))),
  output: agentProcedure
    .meta(rest('POST', '/agent/jobs/{id}/output', "Post a job's raw tool output (agents)"))
    .input(ZJobOutputIn)
    .output(ZRunOutputResult)
    .mutation(notifying(svc(postJobOutput))),
  finish: agentProcedure
    .meta(
      rest(
        'POST',
        '/agent/jobs/{id}/finish',
        'Finish a job (agents)',
        'status succeeded | failed | cancelled | timed_out; releases the lease.',
      ),
    )
    .input(ZJobFinishIn)
    .output(ZRun)
    .mutation(notifying(svc(finishJob))),
  cancel: withPermission({ run: ['cancel'] })
    .meta(
      runsRest(
        'POST',
        '/runs/{id}/cancel',
        'Cancel a queued or running run',
        'A queued run ends `cancelled` at once; a claimed/running one is flagged and its agent stops the tool (SIGINT, then SIGKILL) on its next lease renewal.',
      ),
    )
    .input(ZRunId)
    .output(ZRunCancelled)
    .mutation(notifying(svc(cancelRun, 'id'))),
  progress: withPermission({ run: ['read'] })
    .meta(runsRest('GET', '/runs/{id}/progress', 'Status, agent, lease and live sample count of a run'))
    .input(ZRunId)
    .output(ZRunProgress)
    .query(svc(getRunProgress, 'id')),
});
