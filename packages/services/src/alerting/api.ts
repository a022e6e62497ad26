/** Procedures' services for alert instances, silences, channels, routing and push subscriptions. */
import * as repo from '@clusterscope/db';
import type { TChannelRow, TInstanceView, TDeliveryRow } from '@clusterscope/db';
import {
  DEFAULT_GROUPING,
  ALERT_SERIES,
  SECRET_MASK,
  ZAlertMetric,
  type TAggregation,
  type TAlertComparison,
  SEVERITIES,
  ZAlertListInput,
  ZChannelCreate,
  ZChannelSettings,
  ZChannelUpdate,
  ZPushSubscribe,
  ZRoutingSet,
  ZSilenceCreate,
  ZSilencePreview,
  type TAlertDetail,
  type TAlertEvent,
  type TAlertInstance,
  type TAlertState,
  type TChannel,
  type TChannelKind,
  type TDelivery,
  type TRouting,
  type TRoutingGap,
  type TSeverity,
  type TSilence,
} from '@clusterscope/schema';
import type { z } from 'zod';
import type { TDeps } from '../core/deps';
import { assertCan, can, type TCaller } from '../tenancy/caller';
import { boundClusterOf } from '../tenancy/access';
import { AppError, notFound } from '../core/errors';
import { outboundOf } from '../core/outbound';
import { openSecret, sealSecret, secretKeysOf } from '../core/secrets';
import { isSilenceActive, isSilencedSpan, matchersMatch, type TSilenceMatcher } from './silences-match';
import { toFixedReason } from './channels';

export const toDelivery = (d: Omit<TDeliveryRow, 'payload'>): TDelivery => ({
  id: d.id,
  channelId: d.channelId,
  kind: d.kind as TDelivery['kind'],
  title: d.title,
  status: d.status as TDelivery['status'],
  attempts: d.attempts,
  // Rows written before the fixed reasons may hold a remote response body: never shown.
  lastError: toFixedReason(d.lastError),
  nextAttemptAt: d.nextAttemptAt,
  sentAt: d.sentAt,
  createdAt: d.createdAt,
});

/** Validates service input (callers outside tRPC too); a bad field is a 400 naming it. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const i = r.error.issues[0];
  throw new AppError('BAD_REQUEST', `${i?.path.join('.') || 'input'}: ${i?.message ?? 'invalid'}`);
}

export const actorName = (c: TCaller) => (c.kind === 'user' ? `user:${c.userId}` : `token:${c.tokenId}`);

export function toAlertInstance(
  i: TInstanceView,
  silences: TSilenceMatcher[],
  now = new Date(),
): TAlertInstance {
  const labels = (i.labels ?? {}) as Record<string, string>;
  return {
    id: i.id,
    ruleId: i.ruleId,
    ruleName: i.rule.name,
    clusterId: i.clusterId,
    clusterName: i.cluster.name,
    key: i.key,
    labels,
    state: i.state as TAlertState,
    severity: i.severity as TSeverity,
    summary: i.summary,
    runbookUrl: i.rule.runbookUrl,
    value: i.value,
    activeAt: i.activeAt,
    firedAt: i.firedAt,
    resolvedAt: i.resolvedAt,
    ackedBy: i.ackedBy,
    ackedAt: i.ackedAt,
    silenced: isSilencedSpan(
      silences,
      {
        clusterId: i.clusterId,
        ruleId: i.ruleId,
        labels,
        state: i.state,
        activeAt: i.activeAt,
        firedAt: i.firedAt,
        resolvedAt: i.resolvedAt,
      },
      now,
    ),
    updatedAt: i.updatedAt,
  };
}

const SEVERITY_RANK: Record<string, number> = { critical: 0, warning: 1, info: 2 };
const STATE_RANK: Record<string, number> = { firing: 0, pending: 1, resolved: 2, inactive: 3 };

/** Firing first, worst first, then oldest first (the on-call order). */
export const compareAlerts = (a: TAlertInstance, b: TAlertInstance) =>
  (STATE_RANK[a.state] ?? 9) - (STATE_RANK[b.state] ?? 9) ||
  (SEVERITY_RANK[a.severity] ?? 9) - (SEVERITY_RANK[b.severity] ?? 9) ||
  (a.firedAt ?? a.activeAt ?? a.updatedAt).getTime() - (b.firedAt ?? b.activeAt ?? b.updatedAt).getTime();

export async function listAlertInstances(deps: TDeps, caller: TCaller, input: unknown) {
  assertCan(caller, { alert: ['read'] });
  const q = parseInput(ZAlertListInput, input ?? {});
  const bound = boundClusterOf(caller);
  if (bound && q.clusterId && q.clusterId !== bound) return [];
  const now = new Date();
  const [rows, silences] = await Promise.all([
    repo.listInstances(deps.db, caller.orgId, {
      states: q.state,
      severities: q.severity,
      clusterId: bound ?? q.clusterId,
      from: q.from === undefined ? undefined : new Date(q.from),
      to: q.to === undefined ? undefined : new Date(q.to),
      limit: q.limit,
    }),
    repo.listSilences(deps.db, caller.orgId),
  ]);
  return rows.map((r) => toAlertInstance(r, silences, now)).sort(compareAlerts);
}

async function loadInstance(deps: TDeps, caller: TCaller, id: string) {
  const i = await repo.getInstance(deps.db, caller.orgId, id);
  const bound = boundClusterOf(caller);
  if (!i || (bound && i.clusterId !== bound)) throw notFound(`alert '${id}'`);
  return i;
}

export async function getAlertDetail(deps: TDeps, caller: TCaller, id: string): Promise<TAlertDetail> {
  assertCan(caller, { alert: ['read'] });
  const i = await loadInstance(deps, caller, id);
  const now = new Date();
  const [events, silences, rule] = await Promise.all([
    repo.listInstanceEvents(deps.db, caller.orgId, id),
    repo.listSilences(deps.db, caller.orgId),
    repo.getAlertRule(deps.db, caller.orgId, i.ruleId),
  ]);
  const metric = rule?.metric ? ZAlertMetric.safeParse(rule.metric) : null;
  return {
    ...toAlertInstance(i, silences, now),
    rule: rule && {
      series: rule.series,
      aggregation: rule.aggregation as TAggregation,
      comparison: rule.comparison as TAlertComparison,
      threshold: rule.threshold,
      forS: rule.forS,
      keepFiringForS: rule.keepFiringForS,
      unit: (ALERT_SERIES as Record<string, { unit: string }>)[rule.series]?.unit ?? '',
      metric: metric?.success ? metric.data : null,
    },
    history: events.map(
      (e): TAlertEvent => ({
        id: e.id,
        kind: e.kind as TAlertEvent['kind'],
        fromState: e.fromState,
        toState: e.toState,
        value: e.value,
        message: e.message,
        actor: e.actor,
        at: e.at,
      }),
    ),
  };
}

/** Acknowledges alerts (idempotent); unknown or foreign ids → NOT_FOUND. Returns the current rows. */
export async function ackAlertInstances(deps: TDeps, caller: TCaller, ids: string[]) {
  assertCan(caller, { alert: ['ack'] });
  const rows = await Promise.all(ids.map((id) => loadInstance(deps, caller, id)));
  await repo.ackInstances(deps.db, caller.orgId, ids, actorName(caller), boundClusterOf(caller));
  const now = new Date();
  const silences = await repo.listSilences(deps.db, caller.orgId);
  const fresh = await Promise.all(rows.map((r) => loadInstance(deps, caller, r.id)));
  return fresh.map((r) => toAlertInstance(r, silences, now));
}

// ---- silences ----

const toSilence = (s: Awaited<ReturnType<typeof repo.listSilences>>[number], now = new Date()): TSilence => ({
  id: s.id,
  clusterId: s.clusterId,
  nodeId: s.nodeId,
  ruleId: s.ruleId,
  startsAt: s.startsAt,
  endsAt: s.endsAt,
  createdBy: s.createdBy,
  comment: s.comment,
  active: isSilenceActive(s, now),
  createdAt: s.createdAt,
});

export async function listSilences(deps: TDeps, caller: TCaller) {
  assertCan(caller, { alert: ['read'] });
  const bound = boundClusterOf(caller);
  return (await repo.listSilences(deps.db, caller.orgId))
    .filter((s) => !bound || s.clusterId === bound)
    .map((s) => toSilence(s));
}

export async function createSilence(deps: TDeps, caller: TCaller, input: unknown) {
  assertCan(caller, { alert: ['silence'] });
  const v = parseInput(ZSilenceCreate, input);
  const bound = boundClusterOf(caller);
  if (bound && v.clusterId !== bound)
    throw new AppError('FORBIDDEN', 'a cluster-bound token may only silence its cluster');
  if (v.clusterId && !(await repo.getCluster(deps.db, caller.orgId, v.clusterId)))
    throw notFound(`cluster '${v.clusterId}'`);
  if (v.ruleId && !(await repo.getAlertRule(deps.db, caller.orgId, v.ruleId)))
    throw notFound(`alert rule '${v.ruleId}'`);
  const s = await repo.createSilence(deps.db, caller.orgId, {
    clusterId: v.clusterId ?? null,
    nodeId: v.nodeId ?? null,
    ruleId: v.ruleId ?? null,
    startsAt: v.startsAt ?? new Date(),
    endsAt: v.endsAt,
    comment: v.comment,
    createdBy: actorName(caller),
  });
  return toSilence(s);
}

/** The alerts (pending or firing) that a silence with these matchers would mute now, worst first. */
export async function previewSilence(deps: TDeps, caller: TCaller, input: unknown) {
  assertCan(caller, { alert: ['read'] });
  const m = parseInput(ZSilencePreview, input);
  const bound = boundClusterOf(caller);
  if (bound && m.clusterId !== bound)
    throw new AppError('FORBIDDEN', 'a cluster-bound token may only silence its cluster');
  if (m.clusterId && !(await repo.getCluster(deps.db, caller.orgId, m.clusterId)))
    throw notFound(`cluster '${m.clusterId}'`);
  const matcher = { clusterId: m.clusterId ?? null, nodeId: m.nodeId ?? null, ruleId: m.ruleId ?? null };
  const now = new Date();
  const [rows, silences] = await Promise.all([
    repo.listInstances(deps.db, caller.orgId, {
      states: ['pending', 'firing'],
      clusterId: matcher.clusterId ?? undefined,
      limit: 500,
    }),
    repo.listSilences(deps.db, caller.orgId, { activeAt: now }),
  ]);
  return rows
    .map((r) => toAlertInstance(r, silences, now))
    .filter((a) => matchersMatch(matcher, a))
    .sort(compareAlerts);
}

export async function expireSilence(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { alert: ['silence'] });
  const bound = boundClusterOf(caller);
  const found = await repo.getSilence(deps.db, caller.orgId, id);
  if (!found || (bound && found.clusterId !== bound)) throw notFound(`silence '${id}'`);
  const s = await repo.expireSilence(deps.db, caller.orgId, id, new Date());
  if (!s) throw notFound(`silence '${id}'`);
  return toSilence(s);
}

// ---- channels ----

/** `https://host/***`: where it goes, without the path or query that may carry a token. */
function redactUrl(v: unknown): string {
  try {
    const u = new URL(String(v));
    return `${u.protocol}//${u.host}/${SECRET_MASK}`;
  } catch {
    return SECRET_MASK;
  }
}

/** `***@corp.example`: which organisation gets it, not whom (an address list is a phishing target list). */
function redactEmail(v: unknown): string {
  const at = String(v).lastIndexOf('@');
  return at < 0 ? SECRET_MASK : `${SECRET_MASK}${String(v).slice(at)}`;
}

/** Per kind, the config fields that only a caller who may configure alerting sees in clear. */
const REDACTED: Record<string, Record<string, (v: unknown) => unknown>> = {
  // An ntfy topic URL (and often a webhook URL) is itself a password.
  webhook: { url: redactUrl },
  ntfy: { url: redactUrl },
  email: { to: (v) => (Array.isArray(v) ? v.map(redactEmail) : SECRET_MASK) },
};

/**
 * A channel for the API: each secret field as `***`; config in clear for a caller who may configure
 * alerting, URLs and recipients redacted for everyone else (viewers, members, tokens).
 */
export function toChannel(c: TChannelRow, caller?: TCaller): TChannel {
  const config = { ...((c.config ?? {}) as Record<string, unknown>) };
  if (!caller || !can(caller, { alert: ['configure'] }))
    for (const [k, redact] of Object.entries(REDACTED[c.kind] ?? {}))
      if (k in config) config[k] = redact(config[k]);
  const secretKeys: Record<string, string[]> = { webhook: ['hmacSecret'], slack: ['url'], ntfy: ['token'] };
  const secret: Record<string, typeof SECRET_MASK> = {};
  if (c.secret) for (const k of secretKeys[c.kind] ?? []) secret[k] = SECRET_MASK;
  return {
    id: c.id,
    name: c.name,
    kind: c.kind as TChannelKind,
    config,
    secret,
    enabled: c.enabled,
    createdAt: c.createdAt,
  };
}

/** The channel's secret fields, opened (only the dispatcher and the edit merge call this). */
export function openChannelSecret(deps: TDeps, c: TChannelRow): Record<string, string> {
  if (!c.secret) return {};
  return JSON.parse(openSecret(secretKeysOf(deps), c.secret, `${c.organizationId}:channel`)) as Record<
    string,
    string
  >;
}

function sealChannelSecret(deps: TDeps, orgId: string, secret: Record<string, string>): string | null {
  const kept = Object.fromEntries(Object.entries(secret).filter(([, v]) => v !== ''));
  if (Object.keys(kept).length === 0) return null;
  return sealSecret(secretKeysOf(deps), JSON.stringify(kept), `${orgId}:channel`);
}

function assertChannelConfig(deps: TDeps, kind: string) {
  if (kind === 'email' && !deps.mail)
    throw new AppError('BAD_REQUEST', 'kind: email channels need SMTP_URL to be set on the server');
}

/** Refuses (400 naming the field) a destination that is not a public address; sending checks again. */
async function assertDestinations(
  deps: TDeps,
  kind: string,
  config: Record<string, unknown>,
  secret: Record<string, unknown>,
) {
  const out = outboundOf(deps);
  if ((kind === 'webhook' || kind === 'ntfy') && typeof config.url === 'string')
    await out.checkUrl(config.url, 'config.url');
  if (kind === 'slack' && typeof secret.url === 'string' && secret.url !== SECRET_MASK)
    await out.checkUrl(secret.url, 'secret.url');
}

export async function listChannels(deps: TDeps, caller: TCaller) {
  assertCan(caller, { alert: ['read'] });
  return (await repo.listChannels(deps.db, caller.orgId)).map((c) => toChannel(c, caller));
}

export async function getChannel(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { alert: ['read'] });
  return toChannel(await loadChannel(deps, caller, id), caller);
}

export async function createChannel(deps: TDeps, caller: TCaller, input: unknown) {
  assertCan(caller, { alert: ['configure'] });
  const v = parseInput(ZChannelCreate, input);
  assertChannelConfig(deps, v.kind);
  if (Object.values(v.secret).includes(SECRET_MASK))
    throw new AppError('BAD_REQUEST', 'secret: send the real value when creating a channel');
  await assertDestinations(deps, v.kind, v.config, v.secret);
  try {
    const c = await repo.createChannel(deps.db, caller.orgId, {
      name: v.name,
      kind: v.kind,
      config: v.config,
      secret: sealChannelSecret(deps, caller.orgId, v.secret as Record<string, string>),
      enabled: v.enabled,
    });
    return toChannel(c, caller);
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002')
      throw new AppError('CONFLICT', `name: a channel named '${v.name}' exists`);
    throw err;
  }
}

async function loadChannel(deps: TDeps, caller: TCaller, id: string) {
  const c = await repo.getChannel(deps.db, caller.orgId, id);
  if (!c) throw notFound(`channel '${id}'`);
  return c;
}

/** Edits a channel; a secret field sent as `***` (or omitted) keeps the stored value. */
export async function updateChannel(deps: TDeps, caller: TCaller, input: unknown) {
  assertCan(caller, { alert: ['configure'] });
  const v = parseInput(ZChannelUpdate, input);
  const c = await loadChannel(deps, caller, v.id);
  const patch: { name?: string; enabled?: boolean; config?: object; secret?: string | null } = {
    name: v.name,
    enabled: v.enabled,
  };
  if ('kind' in v && v.kind) {
    if (v.kind !== c.kind) throw new AppError('BAD_REQUEST', 'kind: the kind of a channel cannot change');
    const settings = parseInput(ZChannelSettings, { kind: v.kind, config: v.config, secret: v.secret });
    await assertDestinations(deps, v.kind, settings.config, settings.secret);
    const old = openChannelSecret(deps, c);
    const merged: Record<string, string> = {};
    for (const [k, val] of Object.entries(settings.secret as Record<string, string>))
      merged[k] = val === SECRET_MASK ? (old[k] ?? '') : val;
    patch.config = settings.config;
    patch.secret = sealChannelSecret(deps, caller.orgId, merged);
  }
  const out = await repo.updateChannel(deps.db, caller.orgId, v.id, patch);
  if (!out) throw notFound(`channel '${v.id}'`);
  return toChannel(out, caller);
}

export async function deleteChannel(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { alert: ['configure'] });
  if (!(await repo.deleteChannel(deps.db, caller.orgId, id))) throw notFound(`channel '${id}'`);
  return { id, deleted: true };
}

export { loadChannel as loadAlertChannel };

// ---- routing ----

export async function getRouting(deps: TDeps, caller: TCaller, clusterId: string | null): Promise<TRouting> {
  assertCan(caller, { alert: ['read'] });
  const bound = boundClusterOf(caller);
  if (
    clusterId &&
    ((bound && bound !== clusterId) || !(await repo.getCluster(deps.db, caller.orgId, clusterId)))
  )
    throw notFound(`cluster '${clusterId}'`);
  const [routes, settings] = await Promise.all([
    repo.listRoutes(deps.db, caller.orgId),
    repo.getAlertSettings(deps.db, caller.orgId),
  ]);
  return {
    clusterId,
    routes: routes
      .filter((r) => r.clusterId === clusterId)
      .map((r) => ({
        severity: r.severity as TSeverity,
        channelIds: r.channelIds,
        escalateAfterMin: r.escalateAfterMin,
        escalationChannelIds: r.escalationChannelIds,
      })),
    grouping: settings
      ? {
          groupWaitS: settings.groupWaitS,
          groupIntervalS: settings.groupIntervalS,
          repeatIntervalS: settings.repeatIntervalS,
        }
      : DEFAULT_GROUPING,
  };
}

export async function setRouting(deps: TDeps, caller: TCaller, input: unknown): Promise<TRouting> {
  assertCan(caller, { alert: ['configure'] });
  const v = parseInput(ZRoutingSet, input);
  if (v.clusterId && !(await repo.getCluster(deps.db, caller.orgId, v.clusterId)))
    throw notFound(`cluster '${v.clusterId}'`);
  const own = new Set((await repo.listChannels(deps.db, caller.orgId)).map((c) => c.id));
  v.routes.forEach((r, i) => {
    for (const id of [...r.channelIds, ...r.escalationChannelIds])
      if (!own.has(id)) throw new AppError('BAD_REQUEST', `routes.${i}: unknown channel '${id}'`);
  });
  await repo.replaceRoutes(deps.db, caller.orgId, v.clusterId, v.routes);
  if (v.grouping && !v.clusterId) await repo.saveAlertSettings(deps.db, caller.orgId, v.grouping);
  return getRouting(deps, caller, v.clusterId);
}

/** Where firing alerts reach nobody (the pages say so, with a link to set up a channel). */
export async function findRoutingGap(deps: TDeps, caller: TCaller): Promise<TRoutingGap> {
  assertCan(caller, { alert: ['read'] });
  const [channels, routes] = await Promise.all([
    repo.listChannels(deps.db, caller.orgId),
    repo.listRoutes(deps.db, caller.orgId),
  ]);
  const enabled = new Set(channels.filter((c) => c.enabled).map((c) => c.id));
  const routed = new Set(
    routes.filter((r) => r.channelIds.some((id) => enabled.has(id))).map((r) => r.severity),
  );
  return { severities: SEVERITIES.filter((s) => !routed.has(s)), channels: enabled.size };
}

// ---- push ----

export function getVapidPublicKey(deps: TDeps, caller: TCaller) {
  assertCan(caller, { alert: ['read'] });
  return { publicKey: deps.vapid?.publicKey ?? null };
}

function assertUser(caller: TCaller): asserts caller is Extract<TCaller, { kind: 'user' }> {
  if (caller.kind !== 'user')
    throw new AppError('FORBIDDEN', 'push subscriptions belong to signed-in people');
}

export async function subscribePush(deps: TDeps, caller: TCaller, input: unknown) {
  assertCan(caller, { alert: ['read'] });
  assertUser(caller);
  const v = parseInput(ZPushSubscribe, input);
  // Push services are public https endpoints; anything else would let any member probe the inside.
  await outboundOf(deps).checkUrl(v.endpoint, 'endpoint', { https: true });
  const s = await repo.savePushSubscription(deps.db, caller.orgId, caller.userId, {
    endpoint: v.endpoint,
    p256dh: v.keys.p256dh,
    auth: v.keys.auth,
  });
  return { id: s.id, endpoint: s.endpoint };
}

export async function unsubscribePush(deps: TDeps, caller: TCaller, endpoint: string) {
  assertCan(caller, { alert: ['read'] });
  assertUser(caller);
  return { removed: await repo.deletePushSubscription(deps.db, caller.orgId, caller.userId, endpoint) };
}
