import { router } from './trpc';
import { clustersRouter } from './routers/clusters';
import { orgsRouter } from './routers/orgs';
import { tokensRouter } from './routers/tokens';
import { agentsRouter } from './routers/agents';
import { dashboardRouter } from './routers/dashboard';

/** The one router: browser (tRPC) and CI (REST via OpenAPI meta) call the same procedures. */
export const appRouter = router({
  orgs: orgsRouter,
  tokens: tokensRouter,
  clusters: clustersRouter,
  agents: agentsRouter,
  dashboard: dashboardRouter,
});
export type AppRouter = typeof appRouter;
