import { z } from 'zod';
import { createToken, listTokens, revokeToken, ZTokenCreate, assertCan } from '@clusterscope/services';
import { orgProcedure, router } from '../trpc';

export const tokensRouter = router({
  list: orgProcedure.query(({ ctx }) => listTokens(ctx.deps, ctx.caller)),
  create: orgProcedure.input(ZTokenCreate).mutation(({ ctx, input }) => {
    assertCan(ctx.caller, { token: ['create'] });
    return createToken(ctx.deps, ctx.caller.orgId, input, {
      caller: ctx.caller,
      userId: ctx.caller.kind === 'user' ? ctx.caller.userId : null,
    });
  }),
  revoke: orgProcedure
    .input(z.object({ id: z.string().min(1) }))
    .mutation(({ ctx, input }) => revokeToken(ctx.deps, ctx.caller, input.id)),
});
