import { z } from 'zod';
import { ZAgentListItem, ZCurrentOrg, ZInvitation, ZMember, ZMyOrg, ZToken } from './access';
import {
  ZAlertDetail,
  ZAlertInstance,
  ZAlertRule,
  ZChannel,
  ZDelivery,
  ZRouting,
  ZRoutingGap,
  ZSilence,
} from './alerting';
import { ZRunListMeta, ZRunListRow, ZRunVerdict } from './compare';
import { ZWorkload } from './workloads';
import { ZCluster, ZClusterHealth, ZClusterSettings, ZClusterView, ZOncallView } from './views';

/**
 * One view-model per page: what each page's load renders, returned by one procedure (`pages.*`).
 * The dashboard, on-call and run pages have theirs beside their data (views.ts, run-page.ts).
 */

const ZName = z.object({ id: z.string(), name: z.string() });
/** Who is who (acknowledged by, silence author): ids to names. Empty for callers that may not list members. */
const ZPeople = z.array(ZMember.pick({ user: true }));

/** The org layout: the org in the URL (with the caller's role) and the switcher's list. */
export const ZOrgNavView = z.object({
  org: ZCurrentOrg,
  orgs: z.array(ZMyOrg),
  /** The alerts badge: unsilenced firing alerts, and how many of them are critical. */
  alerts: z.object({ firing: z.number(), critical: z.number() }),
});
export type TOrgNavView = z.infer<typeof ZOrgNavView>;

/** The cluster page: its view (without charts: they load after) and its alerts over the window (null: alerting failed). */
export const ZClusterPageView = z.object({ view: ZClusterView, alerts: z.array(ZAlertInstance).nullable() });
export type TClusterPageView = z.infer<typeof ZClusterPageView>;

/** What the on-call list shows of an alert (100 firing alerts are 100 of these), times as epoch ms. */
export const ZOncallAlert = ZAlertInstance.pick({
  id: true,
  ruleId: true,
  ruleName: true,
  clusterId: true,
  clusterName: true,
  key: true,
  labels: true,
  state: true,
  severity: true,
  summary: true,
  ackedBy: true,
  silenced: true,
}).extend({
  activeAt: z.number().nullable(),
  firedAt: z.number().nullable(),
  resolvedAt: z.number().nullable(),
  ackedAt: z.number().nullable(),
});
export type TOncallAlert = z.infer<typeof ZOncallAlert>;

/** Firing and pending alerts, and the members who acknowledged one of them. */
export const ZOncallAlerts = z.object({
  alerts: z.array(ZOncallAlert),
  members: ZPeople,
  unrouted: ZRoutingGap,
});
export type TOncallAlerts = z.infer<typeof ZOncallAlerts>;

/** The phone page: cluster health, and the alert list (null when alerting failed: it never breaks the page). */
export const ZOncallPageView = z.object({ oncall: ZOncallView, alerting: ZOncallAlerts.nullable() });
export type TOncallPageView = z.infer<typeof ZOncallPageView>;

export const ZAlertsPageView = z.object({
  alerts: z.array(ZAlertInstance),
  clusters: z.array(ZName),
  members: ZPeople,
  unrouted: ZRoutingGap,
});
export type TAlertsPageView = z.infer<typeof ZAlertsPageView>;

export const ZAlertPageView = z.object({ alert: ZAlertDetail, members: ZPeople });
export type TAlertPageView = z.infer<typeof ZAlertPageView>;

export const ZSilencesPageView = z.object({
  silences: z.array(ZSilence),
  clusters: z.array(ZName),
  rules: z.array(ZAlertRule.pick({ id: true, name: true, clusterId: true })),
  members: ZPeople,
});
export type TSilencesPageView = z.infer<typeof ZSilencesPageView>;

export const ZChannelsPageView = z.object({
  /** Each channel with its newest deliveries (the delivery log). */
  channels: z.array(ZChannel.extend({ deliveries: z.array(ZDelivery) })),
});
export type TChannelsPageView = z.infer<typeof ZChannelsPageView>;

export const ZRoutingPageView = z.object({
  routing: ZRouting,
  channels: z.array(ZChannel.pick({ id: true, name: true, kind: true, enabled: true })),
  clusters: z.array(ZName),
});
export type TRoutingPageView = z.infer<typeof ZRoutingPageView>;

export const ZRulesPageView = z.object({
  rules: z.array(ZAlertRule),
  clusters: z.array(ZName),
  unrouted: ZRoutingGap,
});
export type TRulesPageView = z.infer<typeof ZRulesPageView>;

export const ZMembersPageView = z.object({
  members: z.array(ZMember),
  /** Pending invitations; empty unless the caller may invite. */
  invitations: z.array(ZInvitation),
});
export type TMembersPageView = z.infer<typeof ZMembersPageView>;

export const ZWorkloadsPageView = z.object({
  workloads: z.array(ZWorkload),
  /** The verdict of each workload's newest run (against its default baseline); null without one. */
  verdicts: z.record(
    z.string(),
    z.object({ verdict: ZRunVerdict.nullable(), reason: z.string(), runId: z.string() }).nullable(),
  ),
  clusters: z.array(ZName),
  agents: z.array(ZAgentListItem.pick({ name: true, clusterId: true })),
});
export type TWorkloadsPageView = z.infer<typeof ZWorkloadsPageView>;

export const ZAgentsPageView = z.object({
  agents: z.array(ZAgentListItem),
  clusters: z.array(ZCluster),
  health: z.array(ZClusterHealth),
});
export type TAgentsPageView = z.infer<typeof ZAgentsPageView>;

export const ZClustersPageView = z.object({
  clusters: z.array(ZCluster),
  settings: ZClusterSettings,
});
export type TClustersPageView = z.infer<typeof ZClustersPageView>;

export const ZTokensPageView = z.object({ tokens: z.array(ZToken), clusters: z.array(ZCluster) });
export type TTokensPageView = z.infer<typeof ZTokensPageView>;

export const ZRunsPageView = z.object({
  runs: z.array(ZRunListRow),
  meta: ZRunListMeta,
  clusters: z.array(ZCluster),
});
export type TRunsPageView = z.infer<typeof ZRunsPageView>;
