import { router } from './trpc';
import { clustersRouter } from './routers/clusters';
import { orgsRouter } from './routers/orgs';
import { tokensRouter } from './routers/tokens';
import { agentsRouter } from './routers/agents';
import { runsRouter } from './routers/runs';
import { dashboardRouter } from './routers/dashboard';
import { compareProcedures } from './routers/compare';
import { runPageProcedures } from './routers/run-pages';
import { exportProcedures } from './routers/exports';
import { thresholdsRouter } from './routers/thresholds';
import { regressionAlertsRouter } from './routers/regression-alerts';
import { workloadsRouter } from './routers/workloads';
import { schedulesRouter } from './routers/schedules';
import { jobsRouter } from './routers/jobs';
import { alertingRouter } from './routers/alerting';
import { pagesRouter } from './routers/pages';

/** The one router: browser (tRPC) and CI (REST via OpenAPI meta) call the same procedures. */
export const appRouter = router({
  orgs: orgsRouter,
  tokens: tokensRouter,
  clusters: clustersRouter,
  agents: agentsRouter,
  runs: runsRouter,
  dashboard: dashboardRouter,
  // One namespace (stable tRPC paths `compare.*`); the files say what each group holds.
  compare: router({ ...compareProcedures, ...runPageProcedures, ...exportProcedures }),
  thresholds: thresholdsRouter,
  regressionAlerts: regressionAlertsRouter,
  workloads: workloadsRouter,
  schedules: schedulesRouter,
  jobs: jobsRouter,
  alerting: alertingRouter,
  pages: pagesRouter,
});
export type AppRouter = typeof appRouter;
