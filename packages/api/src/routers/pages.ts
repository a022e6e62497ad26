import { z } from 'zod';
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
  getRunsPage,
  getSilencesPage,
  getTokensPage,
  getWorkloadsPage,
} from '@clusterscope/services';
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
import { myOrgs, orgProcedure, router } from '../trpc';
import { checked, scope, ZClusterWindow } from './dashboard';

/** One procedure per page (the pages' loads): exactly what the page renders, in one call. */
export const pagesRouter = router({
  /** The org layout: the org in the URL with the caller's role, and the org switcher. */
  nav: orgProcedure.output(ZOrgNavView).query(async ({ ctx }) => {
    const c = ctx.caller;
    return {
      org: { id: c.orgId, slug: c.orgSlug, role: c.kind === 'user' ? c.role : null },
      orgs: c.kind === 'user' ? await myOrgs(ctx, c.userId) : [],
    };
  }),
  /** The cluster page (charts come after, from `dashboard.chartsView`) and its alert timeline. */
  cluster: orgProcedure
    .input(checked(ZClusterWindow))
    .output(ZClusterPageView)
    .query(({ ctx, input }) => getClusterPage(ctx.deps, ctx.caller, scope(input))),
  oncall: orgProcedure.output(ZOncallPageView).query(({ ctx }) => getOncallPage(ctx.deps, ctx.caller)),
  alerts: orgProcedure
    .input(ZAlertListInput)
    .output(ZAlertsPageView)
    .query(({ ctx, input }) => getAlertsPage(ctx.deps, ctx.caller, input)),
  alert: orgProcedure
    .input(z.object({ id: ZAlertingId }))
    .output(ZAlertPageView)
    .query(({ ctx, input }) => getAlertPage(ctx.deps, ctx.caller, input.id)),
  silences: orgProcedure.output(ZSilencesPageView).query(({ ctx }) => getSilencesPage(ctx.deps, ctx.caller)),
  channels: orgProcedure.output(ZChannelsPageView).query(({ ctx }) => getChannelsPage(ctx.deps, ctx.caller)),
  routing: orgProcedure
    .input(z.object({ clusterId: ZAlertingId.nullable().default(null) }))
    .output(ZRoutingPageView)
    .query(({ ctx, input }) => getRoutingPage(ctx.deps, ctx.caller, input.clusterId)),
  rules: orgProcedure.output(ZRulesPageView).query(({ ctx }) => getRulesPage(ctx.deps, ctx.caller)),
  members: orgProcedure.output(ZMembersPageView).query(({ ctx }) => getMembersPage(ctx.deps, ctx.caller)),
  workloads: orgProcedure
    .output(ZWorkloadsPageView)
    .query(({ ctx }) => getWorkloadsPage(ctx.deps, ctx.caller)),
  agents: orgProcedure.output(ZAgentsPageView).query(({ ctx }) => getAgentsPage(ctx.deps, ctx.caller)),
  clusters: orgProcedure.output(ZClustersPageView).query(({ ctx }) => getClustersPage(ctx.deps, ctx.caller)),
  tokens: orgProcedure.output(ZTokensPageView).query(({ ctx }) => getTokensPage(ctx.deps, ctx.caller)),
  runs: orgProcedure
    .input(ZRunFilter)
    .output(ZRunsPageView)
    .query(({ ctx, input }) => getRunsPage(ctx.deps, ctx.caller, input)),
});
