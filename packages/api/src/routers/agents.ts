import { z } from 'zod';
import { enrollAgent, listAgents, revokeAgent } from '@clusterscope/services/jobs';
import { ZAgentEnroll, ZAgentEnrolled, ZAgentListItem, ZRevoked } from '@clusterscope/schema';
import { orgProcedure, router, withPermission, svc } from '../trpc';

export const agentsRouter = router({
  list: orgProcedure.output(z.array(ZAgentListItem)).query(svc(listAgents)),
  /** Issues an agent credential (shown once) bound to the agent and its cluster. */
  enroll: withPermission({ token: ['create'] })
    .input(ZAgentEnroll)
    .output(ZAgentEnrolled)
    .mutation(({ ctx, input }) =>
      enrollAgent(ctx.deps, ctx.caller.orgId, input, {
        caller: ctx.caller,
        userId: ctx.caller.kind === 'user' ? ctx.caller.userId : null,
      }),
    ),
  revoke: withPermission({ token: ['revoke'] })
    .input(z.object({ id: z.string().min(1).max(64) }))
    .output(ZRevoked)
    .mutation(svc(revokeAgent, 'id')),
});
