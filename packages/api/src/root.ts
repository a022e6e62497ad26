import { router } from './trpc';
import { clustersRouter } from './routers/clusters';
import { orgsRouter } from './routers/orgs';
import { tokensRouter } from './routers/tokens';
import { agentsRouter } from './routers/agents';

/** The one router: browser (tRPC) and CI (REST via OpenAPI meta) call the same procedures. */
export const appRouter = router({
  orgs: orgsRouter,
  tokens: tokensRouter,
  clusters: clustersRouter,
  agents: agentsRouter,
});
export type AppRouter = typeof appRouter;
