import { z } from 'zod';
import { createToken, listTokens, revokeToken, assertCan } from '@clusterscope/services/tenancy';
import { ZRevoked, ZToken, ZTokenCreate, ZTokenCreated } from '@clusterscope/schema';
import { orgProcedure, router, svc } from '../trpc';

export const tokensRouter = router({
  list: orgProcedure.output(z.array(ZToken)).query(svc(listTokens)),
  create: orgProcedure
    .input(ZTokenCreate)
    .output(ZTokenCreated)
    .mutation(({ ctx, input }) => {
      assertCan(ctx.caller, { token: ['create'] });
      return createToken(ctx.deps, ctx.caller.orgId, input, {
        caller: ctx.caller,
        userId: ctx.caller.kind === 'user' ? ctx.caller.userId : null,
      });
    }),
  revoke: orgProcedure
    .input(z.object({ id: z.string().min(1) }))
    .output(ZRevoked)
    .mutation(svc(revokeToken, 'id')),
});
