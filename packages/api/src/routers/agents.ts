import { findAgents } from '@clusterscope/services';
import { orgProcedure, router } from '../trpc';

export const agentsRouter = router({
  list: orgProcedure.query(({ ctx }) => findAgents(ctx.deps, ctx.caller)),
});
