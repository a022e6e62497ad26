import { listRecentDeliveries } from '@clusterscope/db';
import type {
  TChartWindow,
  TClusterPageView,
  TOncallAlerts,
  TOncallPageView,
  TAgentsPageView,
  TAlertPageView,
  TAlertsPageView,
  TChannelsPageView,
  TClustersPageView,
  TMembersPageView,
  TRoutingPageView,
  TRulesPageView,
  TSilencesPageView,
  TTokensPageView,
  TWorkloadsPageView,
} from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import { assertCan, type TCaller } from '../tenancy/caller';
import { AppError } from '../core/errors';
import { boundClusterOf, loadRuns } from '../tenancy/access';
import { listAgents } from '../jobs/agents';
import { listClusters, getClusterSettings } from '../tenancy/clusters';
import { judgeRunsByDefault } from '../runs/compare';
import { getClusterView, getOncall, listClusterHealth } from '../reads/dashboard';
import { getInvitations, getMembers } from '../tenancy/orgs';
import { roleCan } from '../tenancy/permissions';
import { listTokens } from '../tenancy/tokens';
import { listWorkloads } from '../runs/workloads';
import {
  listAlertInstances,
  listAlertRules,
  listChannels,
  findRoutingGap,
  listSilences,
  getAlertDetail,
  getRouting,
  toDelivery,
} from '../alerting';
import { logOf } from '../core/logger';

/*
 * One view-model per page (packages/schema/src/pages.ts): each page's load makes one call, which reads
 * what the page renders in parallel. The caller (org, membership) was resolved once for the request.
 */

/** Deliveries shown per channel on the channels page. */
export const CHANNEL_LOG_SIZE = 20;

const clusterNames = async (deps: TDeps, caller: TCaller) =>
  (await listClusters(deps, caller)).map((c) => ({ id: c.id, name: c.name }));

/** Members' names for "acknowledged by" and silence authors; empty for a caller that may not list them. */
async function listPeople(deps: TDeps, caller: TCaller) {
  try {
    return (await getMembers(deps, caller)).map((m) => ({ user: m.user }));
  } catch (err) {
    if (err instanceof AppError && err.code === 'FORBIDDEN') return [];
    throw err;
  }
}

/**
 * Alerting must never break the page it sits on: on any error the page shows no alert list (null), and the
 * cause is logged, since the page itself says nothing of it.
 */
const orNull = <T>(deps: TDeps, part: string, p: Promise<T>): Promise<T | null> =>
  p.catch((err: unknown) => {
    logOf(deps).warn({ part, err: String(err) }, 'page part failed: shown without it');
    return null;
  });

/** The cluster page: its view without charts (they load after) and its alerts over the window. */
export async function getClusterPage(
  deps: TDeps,
  caller: TCaller,
  input: TChartWindow & { clusterId: string },
): Promise<TClusterPageView> {
  const [view, alerts] = await Promise.all([
    getClusterView(deps, caller, { ...input, charts: false }),
    orNull(
      deps,
      'alerts',
      listAlertInstances(deps, caller, {
        clusterId: input.clusterId,
        from: input.from,
        to: input.to,
        limit: 200,
      }),
    ),
  ]);
  return { view, alerts };
}

const ms = (d: Date | null) => (d ? d.getTime() : null);

async function listOncallAlerts(deps: TDeps, caller: TCaller): Promise<TOncallAlerts> {
  const [list, unrouted] = await Promise.all([
    listAlertInstances(deps, caller, { state: 'firing,pending', limit: 100 }),
    findRoutingGap(deps, caller),
  ]);
  const ackers = new Set(list.flatMap((a) => (a.ackedBy?.startsWith('user:') ? [a.ackedBy.slice(5)] : [])));
  // Names only for who acknowledged: no member read while nothing is acknowledged (the usual page).
  const people = ackers.size ? await listPeople(deps, caller) : [];
  return {
    alerts: list.map((a) => ({
      id: a.id,
      ruleId: a.ruleId,
      ruleName: a.ruleName,
      clusterId: a.clusterId,
      clusterName: a.clusterName,
      key: a.key,
      labels: a.labels,
      state: a.state,
      severity: a.severity,
      summary: a.summary,
      activeAt: ms(a.activeAt),
      firedAt: ms(a.firedAt),
      resolvedAt: ms(a.resolvedAt),
      ackedBy: a.ackedBy,
      ackedAt: ms(a.ackedAt),
      silenced: a.silenced,
    })),
    members: people.filter((m) => ackers.has(m.user.id)),
    unrouted,
  };
}

/** The phone page: every cluster's health, and the firing and pending alerts worst first. */
export async function getOncallPage(deps: TDeps, caller: TCaller): Promise<TOncallPageView> {
  const [oncall, alerting] = await Promise.all([
    getOncall(deps, caller),
    orNull(deps, 'on-call alerts', listOncallAlerts(deps, caller)),
  ]);
  return { oncall, alerting };
}

export async function getAlertsPage(deps: TDeps, caller: TCaller, input: unknown): Promise<TAlertsPageView> {
  const [alerts, clusters, members, unrouted] = await Promise.all([
    listAlertInstances(deps, caller, input),
    clusterNames(deps, caller),
    listPeople(deps, caller),
    findRoutingGap(deps, caller),
  ]);
  return { alerts, clusters, members, unrouted };
}

export async function getAlertPage(deps: TDeps, caller: TCaller, id: string): Promise<TAlertPageView> {
  const [alert, members] = await Promise.all([getAlertDetail(deps, caller, id), listPeople(deps, caller)]);
  return { alert, members };
}

export async function getSilencesPage(deps: TDeps, caller: TCaller): Promise<TSilencesPageView> {
  const [silences, clusters, rules, members] = await Promise.all([
    listSilences(deps, caller),
    clusterNames(deps, caller),
    listAlertRules(deps, caller, {}),
    listPeople(deps, caller),
  ]);
  const ruleRefs = rules.map((r) => ({ id: r.id, name: r.name, clusterId: r.clusterId }));
  return { silences, clusters, rules: ruleRefs, members };
}

/** Channels with their newest deliveries: two queries whatever the number of channels. */
export async function getChannelsPage(deps: TDeps, caller: TCaller): Promise<TChannelsPageView> {
  const [channels, recent] = await Promise.all([
    listChannels(deps, caller),
    listRecentDeliveries(deps.db, caller.orgId, CHANNEL_LOG_SIZE, boundClusterOf(caller)),
  ]);
  return {
    channels: channels.map((c) => ({
      ...c,
      deliveries: recent.filter((d) => d.channelId === c.id).map(toDelivery),
    })),
  };
}

export async function getRoutingPage(
  deps: TDeps,
  caller: TCaller,
  clusterId: string | null,
): Promise<TRoutingPageView> {
  const [routing, channels, clusters] = await Promise.all([
    getRouting(deps, caller, clusterId),
    listChannels(deps, caller),
    clusterNames(deps, caller),
  ]);
  const refs = channels.map((c) => ({ id: c.id, name: c.name, kind: c.kind, enabled: c.enabled }));
  return { routing, channels: refs, clusters };
}

export async function getRulesPage(deps: TDeps, caller: TCaller): Promise<TRulesPageView> {
  const [rules, clusters, unrouted] = await Promise.all([
    listAlertRules(deps, caller, {}),
    clusterNames(deps, caller),
    findRoutingGap(deps, caller),
  ]);
  return { rules, clusters, unrouted };
}

/** Members, and the pending invitations when the caller may invite (owners and admins). */
export async function getMembersPage(deps: TDeps, caller: TCaller): Promise<TMembersPageView> {
  const manage = caller.kind === 'user' && roleCan(caller.role, { invitation: ['create'] });
  const [members, invitations] = await Promise.all([
    getMembers(deps, caller),
    manage ? getInvitations(deps, caller) : [],
  ]);
  return { members, invitations };
}

/** Workloads with the verdict of each one's newest run (one batched judgement, not one per workload). */
export async function getWorkloadsPage(deps: TDeps, caller: TCaller): Promise<TWorkloadsPageView> {
  assertCan(caller, { run: ['read'] });
  const [workloads, clusters, agents] = await Promise.all([
    listWorkloads(deps, caller),
    clusterNames(deps, caller),
    listAgents(deps, caller),
  ]);
  const last = await loadRuns(
    deps,
    caller,
    workloads.flatMap((w) => (w.lastRun ? [w.lastRun.id] : [])),
  );
  const judged = await judgeRunsByDefault(deps, caller, last);
  const verdicts: TWorkloadsPageView['verdicts'] = {};
  for (const w of workloads) {
    const run = w.lastRun && last.find((r) => r.id === w.lastRun!.id);
    const j = run ? judged.get(run.id) : undefined;
    verdicts[w.id] = run ? { verdict: j?.verdict ?? null, reason: j?.reason ?? '', runId: run.id } : null;
  }
  return {
    workloads,
    verdicts,
    clusters,
    agents: agents.map((a) => ({ name: a.name, clusterId: a.clusterId })),
  };
}

export async function getAgentsPage(deps: TDeps, caller: TCaller): Promise<TAgentsPageView> {
  const [agents, clusters, health] = await Promise.all([
    listAgents(deps, caller),
    listClusters(deps, caller),
    listClusterHealth(deps, caller),
  ]);
  return { agents, clusters, health };
}

export async function getClustersPage(deps: TDeps, caller: TCaller): Promise<TClustersPageView> {
  const [clusters, settings] = await Promise.all([
    listClusters(deps, caller),
    getClusterSettings(deps, caller),
  ]);
  return { clusters, settings };
}

export async function getTokensPage(deps: TDeps, caller: TCaller): Promise<TTokensPageView> {
  const [tokens, clusters] = await Promise.all([listTokens(deps, caller), listClusters(deps, caller)]);
  return { tokens, clusters };
}
