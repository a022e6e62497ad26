import { z } from 'zod';
import { countFiringAlerts } from '@clusterscope/services/health';
import {
  getAgentsPage,
  getAlertPage,
  getAlertsPage,
  getChannelsPage,
  getClusterPage,
  getClustersPage,
  getMembersPage,
  getOncallPage,
  getRoutingPage,
  getRulesPage,
  getSilencesPage,
  getTokensPage,
  getWorkloadsPage,
} from '@clusterscope/services/pages';
import { getRunsPage } from '@clusterscope/services/runs';
import {
  ZAgentsPageView,
  ZAlertingId,
  ZAlertListInput,
  ZAlertPageView,
  ZAlertsPageView,
  ZChannelsPageView,
  ZClusterPageView,
  ZClustersPageView,
  ZMembersPageView,
  ZOncallPageView,
  ZOrgNavView,
  ZRoutingPageView,
  ZRulesPageView,
  ZRunFilter,
  ZRunsPageView,
  ZSilencesPageView,
  ZTokensPageView,
  ZWorkloadsPageView,
} from '@clusterscope/schema';
import { myOrgs, orgProcedure, router, svc } from '../trpc';
import { checked, scope, ZClusterWindow } from './dashboard';

/** One procedure per page (the pages' loads): exactly what the page renders, in one call. */
export const pagesRouter = router({
  /** The org layout: the org in the URL with the caller's role, and the org switcher. */
  nav: orgProcedure.output(ZOrgNavView).query(async ({ ctx }) => {
    const c = ctx.caller;
    const [orgs, alerts] = await Promise.all([
      c.kind === 'user' ? myOrgs(ctx, c.userId) : [],
      countFiringAlerts(ctx.deps, c),
    ]);
    return { org: { id: c.orgId, slug: c.orgSlug, role: c.kind === 'user' ? c.role : null }, orgs, alerts };
  }),
  /** The cluster page (charts come after, from `dashboard.chartsView`) and its alert timeline. */
  cluster: orgProcedure
    .input(checked(ZClusterWindow))
    .output(ZClusterPageView)
    .query(({ ctx, input }) => getClusterPage(ctx.deps, ctx.caller, scope(input))),
  oncall: orgProcedure.output(ZOncallPageView).query(svc(getOncallPage)),
  alerts: orgProcedure.input(ZAlertListInput).output(ZAlertsPageView).query(svc(getAlertsPage)),
  alert: orgProcedure
    .input(z.object({ id: ZAlertingId }))
    .output(ZAlertPageView)
    .query(svc(getAlertPage, 'id')),
  silences: orgProcedure.output(ZSilencesPageView).query(svc(getSilencesPage)),
  channels: orgProcedure.output(ZChannelsPageView).query(svc(getChannelsPage)),
  routing: orgProcedure
    .input(z.object({ clusterId: ZAlertingId.nullable().default(null) }))
    .output(ZRoutingPageView)
    .query(svc(getRoutingPage, 'clusterId')),
  rules: orgProcedure.output(ZRulesPageView).query(svc(getRulesPage)),
  members: orgProcedure.output(ZMembersPageView).query(svc(getMembersPage)),
  workloads: orgProcedure.output(ZWorkloadsPageView).query(svc(getWorkloadsPage)),
  agents: orgProcedure.output(ZAgentsPageView).query(svc(getAgentsPage)),
  clusters: orgProcedure.output(ZClustersPageView).query(svc(getClustersPage)),
  tokens: orgProcedure.output(ZTokensPageView).query(svc(getTokensPage)),
  runs: orgProcedure.input(ZRunFilter).output(ZRunsPageView).query(svc(getRunsPage)),
});
