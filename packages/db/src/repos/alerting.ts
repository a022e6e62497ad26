/** On-call alerting rows (issue 12). Every query filters by organization unless it is the evaluator's sweep. */
import type { TDb } from '../client';
import { Prisma } from '../generated/prisma/client';

// ---- rules ----

export type TAlertRuleRow = Prisma.AlertRuleGetPayload<object>;
export type TAlertRuleData = Omit<
  Prisma.AlertRuleUncheckedCreateInput,
  'id' | 'organizationId' | 'createdAt' | 'updatedAt' | 'metric'
> & { metric?: Prisma.InputJsonValue | null };

/** Prisma wants DbNull, not null, for an empty Json column. */
const withMetric = <T extends { metric?: Prisma.InputJsonValue | null }>(d: T) =>
  d.metric === undefined ? { ...d, metric: undefined } : { ...d, metric: d.metric ?? Prisma.DbNull };

export async function listAlertRules(db: TDb, orgId: string, clusterId?: string) {
  return db.alertRule.findMany({
    where: {
      organizationId: orgId,
      ...(clusterId ? { OR: [{ clusterId }, { clusterId: null }] } : {}),
    },
    orderBy: [{ builtin: 'asc' }, { name: 'asc' }, { id: 'asc' }],
  });
}

export async function getAlertRule(db: TDb, orgId: string, id: string) {
  return db.alertRule.findFirst({ where: { id, organizationId: orgId } });
}

export async function createAlertRule(db: TDb, orgId: string, data: TAlertRuleData) {
  return db.alertRule.create({ data: { ...withMetric(data), organizationId: orgId } });
}

export async function updateAlertRule(db: TDb, orgId: string, id: string, data: Partial<TAlertRuleData>) {
  const res = await db.alertRule.updateMany({ where: { id, organizationId: orgId }, data: withMetric(data) });
  return res.count ? getAlertRule(db, orgId, id) : null;
}

export async function deleteAlertRule(db: TDb, orgId: string, id: string) {
  return (await db.alertRule.deleteMany({ where: { id, organizationId: orgId } })).count > 0;
}

/** Inserts built-in rule rows that are missing (concurrent callers are harmless: the unique key skips). */
export async function insertBuiltinRules(db: TDb, rows: (TAlertRuleData & { organizationId: string })[]) {
  if (rows.length === 0) return 0;
  return (await db.alertRule.createMany({ data: rows.map(withMetric), skipDuplicates: true })).count;
}

// ---- evaluator sweep (all orgs) ----

export async function listAllClustersForAlerting(db: TDb) {
  return db.cluster.findMany({
    select: {
      id: true,
      organizationId: true,
      name: true,
      intervalS: true,
      organization: { select: { slug: true } },
    },
  });
}

export async function listAllAlertRules(db: TDb) {
  return db.alertRule.findMany();
}

/** Changes whenever a rule is created, edited or deleted (the evaluator re-reads rules only then). */
export async function getAlertRulesVersion(db: TDb): Promise<string> {
  const a = await db.alertRule.aggregate({ _count: { _all: true }, _max: { updatedAt: true } });
  return `${a._count._all}|${a._max.updatedAt?.getTime() ?? 0}`;
}

/** Instances that are not inactive (inactive ones are not stored past their pending phase). */
export async function listLiveInstances(db: TDb) {
  return db.alertInstance.findMany({ where: { state: { in: ['pending', 'firing', 'resolved'] } } });
}

export async function listAllAgentsForAlerting(db: TDb, orgId?: string) {
  return db.agent.findMany({
    where: { clusterId: { not: null }, ...(orgId ? { organizationId: orgId } : {}) },
    select: {
      id: true,
      organizationId: true,
      clusterId: true,
      name: true,
      outboxEvictions: true,
      lastSeenAt: true,
      inputs: true,
    },
  });
}

/** Eviction counters as the evaluator last saw them, by agent id. */
export async function listSeenEvictions(db: TDb): Promise<Map<string, number>> {
  const rows = await db.alertAgentEvictions.findMany();
  return new Map(rows.map((r) => [r.agentId, r.evictions]));
}

export async function saveSeenEvictions(db: TDb, seen: { agentId: string; evictions: number }[]) {
  if (seen.length === 0) return;
  await db.$transaction(
    seen.map(({ agentId, evictions }) =>
      db.alertAgentEvictions.upsert({
        where: { agentId },
        create: { agentId, evictions },
        update: { evictions },
      }),
    ),
  );
}

export type TInstanceRow = Prisma.AlertInstanceGetPayload<object>;
export type TInstanceWrite = {
  id?: string;
  organizationId: string;
  ruleId: string;
  clusterId: string;
  key: string;
  labels: Record<string, string>;
  state: string;
  severity: string;
  summary: string;
  value: number | null;
  activeAt: Date | null;
  firedAt: Date | null;
  resolvedAt: Date | null;
  lastTrueAt: Date | null;
  escalatedAt?: Date | null;
};
export type TEventWrite = {
  organizationId: string;
  instanceId?: string;
  kind: string;
  fromState?: string | null;
  toState?: string | null;
  value?: number | null;
  message?: string;
  actor?: string | null;
  at?: Date;
};

/**
 * Writes one evaluation's transitions in one transaction: upserts each changed instance and its history
 * event, and bumps lastTrueAt/value of instances whose condition still holds.
 */
const eventData = (e: TEventWrite, organizationId: string) => ({
  organizationId,
  kind: e.kind,
  fromState: e.fromState ?? null,
  toState: e.toState ?? null,
  value: e.value ?? null,
  message: e.message ?? '',
  actor: e.actor ?? null,
  at: e.at,
});

export async function saveEvaluation(
  db: TDb,
  changes: { instance: TInstanceWrite; event: TEventWrite }[],
  stillTrue: { ids: string[]; at: Date },
) {
  const ops: Prisma.PrismaPromise<unknown>[] = [];
  for (const { instance, event } of changes) {
    const { id, ...data } = instance;
    const where = id
      ? { id }
      : { ruleId_clusterId_key: { ruleId: data.ruleId, clusterId: data.clusterId, key: data.key } };
    ops.push(
      db.alertInstance.upsert({
        where,
        create: {
          ...data,
          events: { create: eventData(event, data.organizationId) },
        },
        update: {
          ...data,
          ackedAt: data.state === 'pending' || data.state === 'inactive' ? null : undefined,
          ackedBy: data.state === 'pending' || data.state === 'inactive' ? null : undefined,
          escalatedAt: data.state === 'pending' ? null : data.escalatedAt,
          events: { create: eventData(event, data.organizationId) },
        },
      }),
    );
  }
  if (stillTrue.ids.length)
    ops.push(
      db.alertInstance.updateMany({
        where: { id: { in: stillTrue.ids } },
        data: { lastTrueAt: stillTrue.at },
      }),
    );
  // One cycle can change thousands of instances: Prisma's 5 s default would abort whole cycles under load.
  if (ops.length) await db.$transaction(ops, { maxWait: 10_000, timeout: 60_000 });
}

// ---- instances (API) ----

const instanceInclude = {
  include: {
    rule: { select: { name: true, runbookUrl: true, builtin: true } },
    cluster: { select: { name: true } },
  },
} as const;
export type TInstanceView = Prisma.AlertInstanceGetPayload<typeof instanceInclude>;

export async function listInstances(
  db: TDb,
  orgId: string,
  q: {
    states?: string[];
    severities?: string[];
    clusterId?: string;
    from?: Date;
    to?: Date;
    limit: number;
  },
) {
  return db.alertInstance.findMany({
    where: {
      organizationId: orgId,
      ...(q.states?.length ? { state: { in: q.states } } : { state: { not: 'inactive' } }),
      ...(q.severities?.length ? { severity: { in: q.severities } } : {}),
      ...(q.clusterId ? { clusterId: q.clusterId } : {}),
      ...(q.to ? { activeAt: { lt: q.to } } : {}),
      ...(q.from ? { OR: [{ resolvedAt: null }, { resolvedAt: { gte: q.from } }] } : {}),
    },
    orderBy: [{ updatedAt: 'desc' }],
    take: q.limit,
    ...instanceInclude,
  });
}

export async function getInstance(db: TDb, orgId: string, id: string) {
  return db.alertInstance.findFirst({ where: { id, organizationId: orgId }, ...instanceInclude });
}

/** Firing instances of every org, plus the given ids (previously notified ones), with rule and cluster. */
export async function listNotifiableInstances(db: TDb, alsoIds: string[]) {
  return db.alertInstance.findMany({
    where: { OR: [{ state: 'firing' }, ...(alsoIds.length ? [{ id: { in: alsoIds } }] : [])] },
    ...instanceInclude,
  });
}

export async function listInstanceEvents(db: TDb, orgId: string, instanceId: string, limit = 200) {
  return db.alertEvent.findMany({
    where: { organizationId: orgId, instanceId },
    orderBy: { at: 'desc' },
    take: limit,
  });
}

/** Acknowledges firing/pending instances of the org (first ack kept); returns the ids acknowledged now. */
export async function ackInstances(db: TDb, orgId: string, ids: string[], by: string, clusterId?: string) {
  const rows = await db.alertInstance.findMany({
    where: {
      id: { in: ids },
      organizationId: orgId,
      ackedAt: null,
      state: { in: ['firing', 'pending'] },
      ...(clusterId ? { clusterId } : {}),
    },
    select: { id: true },
  });
  const now = new Date();
  const done = rows.map((r) => r.id);
  if (done.length)
    await db.$transaction([
      db.alertInstance.updateMany({ where: { id: { in: done } }, data: { ackedAt: now, ackedBy: by } }),
      db.alertEvent.createMany({
        data: done.map((instanceId) => ({
          organizationId: orgId,
          instanceId,
          kind: 'ack',
          actor: by,
          message: `acknowledged by ${by}`,
          at: now,
        })),
      }),
    ]);
  return done;
}

export async function markEscalated(db: TDb, ids: string[], at: Date) {
  if (ids.length)
    await db.alertInstance.updateMany({ where: { id: { in: ids } }, data: { escalatedAt: at } });
}

export async function addAlertEvents(db: TDb, events: (TEventWrite & { instanceId: string })[]) {
  if (events.length) await db.alertEvent.createMany({ data: events });
}

// ---- silences ----

export async function listSilences(db: TDb, orgId: string, q: { activeAt?: Date } = {}) {
  return db.silence.findMany({
    where: {
      organizationId: orgId,
      ...(q.activeAt ? { startsAt: { lte: q.activeAt }, endsAt: { gt: q.activeAt } } : {}),
    },
    orderBy: { endsAt: 'desc' },
    take: 500,
  });
}

/** Silences active at `at`, all orgs (evaluator). */
export async function listActiveSilences(db: TDb, at: Date) {
  return db.silence.findMany({ where: { startsAt: { lte: at }, endsAt: { gt: at } } });
}

export async function createSilence(
  db: TDb,
  orgId: string,
  data: Omit<Prisma.SilenceUncheckedCreateInput, 'id' | 'organizationId' | 'createdAt'>,
) {
  return db.silence.create({ data: { ...data, organizationId: orgId } });
}

export async function getSilence(db: TDb, orgId: string, id: string) {
  return db.silence.findFirst({ where: { id, organizationId: orgId } });
}

/** Ends a silence now (kept for history). */
export async function expireSilence(db: TDb, orgId: string, id: string, at: Date) {
  await db.silence.updateMany({
    where: { id, organizationId: orgId, endsAt: { gt: at } },
    data: { endsAt: at },
  });
  return getSilence(db, orgId, id);
}

// ---- channels ----

export type TChannelRow = Prisma.NotificationChannelGetPayload<object>;

export async function listChannels(db: TDb, orgId: string) {
  return db.notificationChannel.findMany({ where: { organizationId: orgId }, orderBy: { name: 'asc' } });
}

export async function listAllChannels(db: TDb) {
  return db.notificationChannel.findMany();
}

export async function getChannel(db: TDb, orgId: string, id: string) {
  return db.notificationChannel.findFirst({ where: { id, organizationId: orgId } });
}

export async function createChannel(
  db: TDb,
  orgId: string,
  data: { name: string; kind: string; config: object; secret: string | null; enabled: boolean },
) {
  return db.notificationChannel.create({ data: { ...data, organizationId: orgId } });
}

export async function updateChannel(
  db: TDb,
  orgId: string,
  id: string,
  data: { name?: string; config?: object; secret?: string | null; enabled?: boolean },
) {
  const res = await db.notificationChannel.updateMany({ where: { id, organizationId: orgId }, data });
  return res.count ? getChannel(db, orgId, id) : null;
}

export async function deleteChannel(db: TDb, orgId: string, id: string) {
  return (await db.notificationChannel.deleteMany({ where: { id, organizationId: orgId } })).count > 0;
}

// ---- routing ----

export async function listRoutes(db: TDb, orgId: string) {
  return db.alertRoute.findMany({ where: { organizationId: orgId } });
}

export async function listAllRoutes(db: TDb) {
  return db.alertRoute.findMany();
}

export async function replaceRoutes(
  db: TDb,
  orgId: string,
  clusterId: string | null,
  routes: {
    severity: string;
    channelIds: string[];
    escalateAfterMin: number | null;
    escalationChannelIds: string[];
  }[],
) {
  await db.$transaction([
    db.alertRoute.deleteMany({ where: { organizationId: orgId, clusterId } }),
    db.alertRoute.createMany({ data: routes.map((r) => ({ ...r, organizationId: orgId, clusterId })) }),
  ]);
}

export async function getAlertSettings(db: TDb, orgId: string) {
  return db.alertSettings.findUnique({ where: { organizationId: orgId } });
}

export async function listAllAlertSettings(db: TDb) {
  return db.alertSettings.findMany();
}

export async function saveAlertSettings(
  db: TDb,
  orgId: string,
  s: { groupWaitS: number; groupIntervalS: number; repeatIntervalS: number },
) {
  return db.alertSettings.upsert({
    where: { organizationId: orgId },
    create: { organizationId: orgId, ...s },
    update: s,
  });
}

// ---- notification groups and deliveries ----

export async function listAllGroups(db: TDb) {
  return db.notificationGroup.findMany();
}

export async function saveGroup(
  db: TDb,
  g: {
    organizationId: string;
    clusterId: string;
    channelId: string;
    escalation: boolean;
    notifiedIds: string[];
    firstSeenAt: Date | null;
    lastSentAt: Date | null;
  },
) {
  const { organizationId, clusterId, channelId, escalation, ...data } = g;
  return db.notificationGroup.upsert({
    where: { channelId_clusterId_escalation: { channelId, clusterId, escalation } },
    create: { organizationId, clusterId, channelId, escalation, ...data },
    update: data,
  });
}

export type TDeliveryRow = Prisma.DeliveryGetPayload<object>;

export async function createDelivery(
  db: TDb,
  data: {
    organizationId: string;
    channelId: string;
    groupId?: string | null;
    kind: string;
    title: string;
    payload: object;
    /** Default now (due at once); later when the creator sends it itself (a claim taken at birth). */
    nextAttemptAt?: Date;
  },
) {
  return db.delivery.create({ data });
}

/**
 * Takes a due delivery for one attempt by moving its next attempt out to `until`; false when another sender
 * took it first. A sender that dies mid-attempt leaves the row due again at `until`.
 */
export async function claimDelivery(db: TDb, d: { id: string; attempts: number }, now: Date, until: Date) {
  const r = await db.delivery.updateMany({
    where: { id: d.id, status: 'pending', attempts: d.attempts, nextAttemptAt: { lte: now } },
    data: { nextAttemptAt: until },
  });
  return r.count === 1;
}

/** Deliveries due now, oldest first. */
export async function listDueDeliveries(db: TDb, now: Date, limit = 50) {
  return db.delivery.findMany({
    where: { status: 'pending', nextAttemptAt: { lte: now } },
    orderBy: { nextAttemptAt: 'asc' },
    take: limit,
    include: { channel: true },
  });
}

export async function updateDelivery(
  db: TDb,
  id: string,
  data: {
    status: string;
    attempts: number;
    lastError: string | null;
    nextAttemptAt?: Date;
    sentAt?: Date | null;
  },
) {
  return db.delivery.update({ where: { id }, data });
}

/**
 * The newest `perChannel` deliveries of every channel of the org (the channels page's logs), without
 * payloads; with `clusterId`, only those about that cluster (a cluster-bound token's view).
 */
export async function listRecentDeliveries(db: TDb, orgId: string, perChannel: number, clusterId?: string) {
  const ofCluster =
    clusterId === undefined ? Prisma.empty : Prisma.sql`AND payload->>'clusterId' = ${clusterId}`;
  const ids = await db.$queryRaw<{ id: string }[]>`
    SELECT d.id FROM "NotificationChannel" c
    CROSS JOIN LATERAL (
      SELECT id FROM "Delivery"
      WHERE "channelId" = c.id AND "organizationId" = ${orgId} ${ofCluster}
      ORDER BY "createdAt" DESC, id DESC
      LIMIT ${perChannel}
    ) d
    WHERE c."organizationId" = ${orgId}`;
  return db.delivery.findMany({
    where: { organizationId: orgId, id: { in: ids.map((r) => r.id) } },
    omit: { payload: true },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
}

// ---- push subscriptions ----

export async function savePushSubscription(
  db: TDb,
  orgId: string,
  userId: string,
  sub: { endpoint: string; p256dh: string; auth: string },
) {
  // Keyed by (org, user, endpoint): one browser signed in to two orgs gets both orgs' pushes, and
  // subscribing someone else's endpoint adds a row of one's own instead of taking theirs over.
  return db.pushSubscription.upsert({
    where: { organizationId_userId_endpoint: { organizationId: orgId, userId, endpoint: sub.endpoint } },
    create: { organizationId: orgId, userId, ...sub },
    update: { p256dh: sub.p256dh, auth: sub.auth },
  });
}

export async function deletePushSubscription(db: TDb, orgId: string, userId: string, endpoint: string) {
  return (
    (await db.pushSubscription.deleteMany({ where: { organizationId: orgId, userId, endpoint } })).count > 0
  );
}

export async function deletePushSubscriptionById(db: TDb, id: string) {
  await db.pushSubscription.deleteMany({ where: { id } });
}

export async function listPushSubscriptions(db: TDb, orgId: string, userIds: string[]) {
  return db.pushSubscription.findMany({
    where: {
      organizationId: orgId,
      ...(userIds.length ? { userId: { in: userIds } } : {}),
      user: { members: { some: { organizationId: orgId } } },
    },
  });
}
