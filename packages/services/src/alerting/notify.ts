/**
 * Alertmanager-style notification: alerts are grouped per cluster and channel; a new group waits group_wait,
 * changes go out at most every group_interval, an unchanged unacknowledged group repeats every
 * repeat_interval, and a resolved notification goes out when the group clears. Silenced alerts never notify;
 * acknowledged ones never repeat. Critical alerts unacknowledged for N minutes also go to escalation channels.
 */
import {
  addAlertEvents,
  listActiveSilences,
  listAllAlertSettings,
  listAllChannels,
  listAllClustersForAlerting,
  listAllGroups,
  listAllRoutes,
  listNotifiableInstances,
  markEscalated,
  saveGroup,
  type TInstanceView,
} from '@clusterscope/db';
import { DEFAULT_GROUPING, type TGrouping } from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import type { TNotification, TNotifiedAlert } from './channels';
import { deliverDue, queueDelivery } from './deliveries';
import { isSilenced } from './silences-match';

export interface TGroupState {
  notifiedIds: string[];
  firstSeenAt: Date | null;
  lastSentAt: Date | null;
}

export interface TGroupPlan {
  send: 'firing' | 'resolved' | null;
  /** Previously notified alerts that are no longer firing. */
  resolvedIds: string[];
  next: TGroupState;
}

/**
 * Decides one group's notification (pure). `firing`: notifiable alerts now (not silenced); `active`: every
 * alert still firing, silenced ones included (a silenced alert is not "resolved").
 */
export function planGroup(
  g: TGroupState,
  firing: { id: string; acked: boolean }[],
  active: ReadonlySet<string>,
  grouping: TGrouping,
  now: Date,
): TGroupPlan {
  const t = now.getTime();
  const resolvedIds = g.notifiedIds.filter((id) => !active.has(id));
  const firingIds = firing.map((f) => f.id);
  const firstSeenAt = firing.length ? (g.firstSeenAt ?? now) : g.firstSeenAt;
  const hold: TGroupPlan = { send: null, resolvedIds: [], next: { ...g, firstSeenAt } };
  if (firing.length === 0 && resolvedIds.length === 0) {
    return g.notifiedIds.length
      ? hold
      : { ...hold, next: { notifiedIds: [], firstSeenAt: null, lastSentAt: null } };
  }
  const sendNow = (): TGroupPlan =>
    firing.length === 0
      ? { send: 'resolved', resolvedIds, next: { notifiedIds: [], firstSeenAt: null, lastSentAt: null } }
      : { send: 'firing', resolvedIds, next: { notifiedIds: firingIds, firstSeenAt, lastSentAt: now } };
  if (!g.lastSentAt) {
    if (firing.length === 0)
      return { ...hold, next: { notifiedIds: [], firstSeenAt: null, lastSentAt: null } };
    return t - (firstSeenAt as Date).getTime() >= grouping.groupWaitS * 1000 ? sendNow() : hold;
  }
  const since = t - g.lastSentAt.getTime();
  const known = new Set(g.notifiedIds);
  const changed = resolvedIds.length > 0 || firingIds.some((id) => !known.has(id));
  if (changed) return since >= grouping.groupIntervalS * 1000 ? sendNow() : hold;
  if (firing.some((f) => !f.acked) && since >= grouping.repeatIntervalS * 1000) return sendNow();
  return hold;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "3 nodes down in prod-east", "Unavailable ranges in prod-east", … */
export function notificationTitle(
  alerts: { rule: string; builtin: string | null; status: string }[],
  clusterName: string,
  resolved: boolean,
): string {
  const byRule = new Map<string, { n: number; builtin: string | null }>();
  for (const a of alerts) {
    const e = byRule.get(a.rule) ?? { n: 0, builtin: a.builtin };
    e.n++;
    byRule.set(a.rule, e);
  }
  const parts = [...byRule.entries()].map(([rule, { n, builtin }]) =>
    builtin === 'node_down'
      ? `${plural(n, 'node', 'nodes')} down`
      : builtin === 'node_stale'
        ? `${plural(n, 'node', 'nodes')} stale`
        : n > 1
          ? `${rule} (${n})`
          : rule,
  );
  return `${resolved ? 'Resolved: ' : ''}${parts.join(', ')} in ${clusterName}`;
}

function toNotified(i: TInstanceView, status: 'firing' | 'resolved'): TNotifiedAlert {
  return {
    id: i.id,
    status,
    severity: i.severity,
    rule: i.rule.name,
    ruleId: i.ruleId,
    summary: i.summary,
    labels: (i.labels ?? {}) as Record<string, string>,
    value: i.value,
    startsAt: (i.firedAt ?? i.activeAt ?? i.updatedAt).toISOString(),
    endsAt: status === 'resolved' ? (i.resolvedAt ?? new Date()).toISOString() : null,
    runbookUrl: i.rule.runbookUrl,
    acked: i.ackedAt !== null,
  };
}

/** One notification pass over every org (the leader runs it after each evaluation). */
export async function notifyAlerts(deps: TDeps, now = new Date()): Promise<{ queued: number; sent: number }> {
  const [groups, routes, channels, settings, silences, clusters] = await Promise.all([
    listAllGroups(deps.db),
    listAllRoutes(deps.db),
    listAllChannels(deps.db),
    listAllAlertSettings(deps.db),
    listActiveSilences(deps.db, now),
    listAllClustersForAlerting(deps.db),
  ]);
  const instances = await listNotifiableInstances(
    deps.db,
    groups.flatMap((g) => g.notifiedIds),
  );
  const byId = new Map(instances.map((i) => [i.id, i]));
  const channelById = new Map(channels.filter((c) => c.enabled).map((c) => [c.id, c]));
  const clusterById = new Map(clusters.map((c) => [c.id, c]));
  const groupingOf = (orgId: string) => settings.find((s) => s.organizationId === orgId) ?? DEFAULT_GROUPING;
  const routeOf = (orgId: string, clusterId: string, severity: string) =>
    routes.find((r) => r.organizationId === orgId && r.clusterId === clusterId && r.severity === severity) ??
    routes.find((r) => r.organizationId === orgId && r.clusterId === null && r.severity === severity);

  type TBucket = {
    orgId: string;
    clusterId: string;
    channelId: string;
    escalation: boolean;
    firing: TInstanceView[];
  };
  const buckets = new Map<string, TBucket>();
  const active = new Set<string>();
  const escalateNow: TInstanceView[] = [];
  const bucket = (orgId: string, clusterId: string, channelId: string, escalation: boolean) => {
    const k = `${channelId}|${clusterId}|${escalation}`;
    let b = buckets.get(k);
    if (!b) buckets.set(k, (b = { orgId, clusterId, channelId, escalation, firing: [] }));
    return b;
  };

  for (const i of instances) {
    if (i.state !== 'firing') continue;
    active.add(i.id);
    const labels = (i.labels ?? {}) as Record<string, string>;
    if (
      isSilenced(
        silences.filter((s) => s.organizationId === i.organizationId),
        { clusterId: i.clusterId, ruleId: i.ruleId, labels },
        now,
      )
    )
      continue;
    const route = routeOf(i.organizationId, i.clusterId, i.severity);
    if (!route) continue;
    for (const id of route.channelIds)
      if (channelById.get(id)?.organizationId === i.organizationId)
        bucket(i.organizationId, i.clusterId, id, false).firing.push(i);
    const due =
      i.severity === 'critical' &&
      route.escalateAfterMin &&
      !i.ackedAt &&
      i.firedAt &&
      now.getTime() - i.firedAt.getTime() >= route.escalateAfterMin * 60_000;
    if (due) {
      if (!i.escalatedAt) escalateNow.push(i);
      for (const id of route.escalationChannelIds)
        if (channelById.get(id)?.organizationId === i.organizationId)
          bucket(i.organizationId, i.clusterId, id, true).firing.push(i);
    }
  }
  // Groups that notified before and may now need a resolved notification.
  for (const g of groups)
    if (g.notifiedIds.length && channelById.has(g.channelId))
      bucket(g.organizationId, g.clusterId, g.channelId, g.escalation);

  let queued = 0;
  for (const b of buckets.values()) {
    const g = groups.find(
      (x) => x.channelId === b.channelId && x.clusterId === b.clusterId && x.escalation === b.escalation,
    );
    const prev: TGroupState = g
      ? { notifiedIds: g.notifiedIds, firstSeenAt: g.firstSeenAt, lastSentAt: g.lastSentAt }
      : { notifiedIds: [], firstSeenAt: null, lastSentAt: null };
    const plan = planGroup(
      prev,
      b.firing.map((i) => ({ id: i.id, acked: i.ackedAt !== null })),
      active,
      groupingOf(b.orgId),
      now,
    );
    const same =
      prev.notifiedIds.join() === plan.next.notifiedIds.join() &&
      prev.firstSeenAt?.getTime() === plan.next.firstSeenAt?.getTime() &&
      prev.lastSentAt?.getTime() === plan.next.lastSentAt?.getTime();
    let saved = g;
    if (!same || !g)
      saved = await saveGroup(deps.db, {
        organizationId: b.orgId,
        clusterId: b.clusterId,
        channelId: b.channelId,
        escalation: b.escalation,
        ...plan.next,
      });
    if (!plan.send) continue;
    const cluster = clusterById.get(b.clusterId);
    const clusterName = cluster?.name ?? b.clusterId;
    const org = cluster?.organization.slug ?? '';
    const resolved = plan.resolvedIds.map((id) => byId.get(id)).filter((x): x is TInstanceView => !!x);
    const alerts = [
      ...b.firing.map((i) => toNotified(i, 'firing')),
      ...resolved.map((i) => toNotified(i, 'resolved')),
    ];
    const titled = plan.send === 'resolved' ? resolved : b.firing;
    const origin = deps.origin ?? 'http://127.0.0.1:3000';
    const n: TNotification = {
      status: plan.send,
      title:
        (b.escalation ? 'ESCALATED: ' : '') +
        notificationTitle(
          titled.map((i) => ({ rule: i.rule.name, builtin: i.rule.builtin, status: i.state })),
          clusterName,
          plan.send === 'resolved',
        ),
      org,
      orgId: b.orgId,
      clusterId: b.clusterId,
      clusterName,
      url: `${origin}/${org}/clusters/${b.clusterId}`,
      groupKey: `${b.clusterId}${b.escalation ? ':escalation' : ''}`,
      alerts,
    };
    await queueDelivery(deps, { id: b.channelId, organizationId: b.orgId }, plan.send, n, saved?.id ?? null);
    queued++;
  }

  if (escalateNow.length) {
    await markEscalated(
      deps.db,
      escalateNow.map((i) => i.id),
      now,
    );
    await addAlertEvents(
      deps.db,
      escalateNow.map((i) => ({
        organizationId: i.organizationId,
        instanceId: i.id,
        kind: 'notify',
        message: 'escalated: not acknowledged in time',
        at: now,
      })),
    );
  }
  // Deliveries queued just now are due at once (the simulated clock of tests may run ahead of the real one).
  const sent = await deliverDue(deps, new Date(Math.max(now.getTime(), Date.now())));
  return { queued, sent };
}
