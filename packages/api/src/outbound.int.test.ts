/**
 * Outbound requests through the real tRPC adapter and a real PostgreSQL (issue 36): destinations that are not
 * public are refused on save (400 naming the field) and again at send time, with a loopback canary asserting
 * nothing reached it; the delivery log keeps a status code, never the remote body; "Send test" answers 429 with
 * Retry-After; Web Push endpoints must be https on a public address and fail with one fixed reason; push
 * subscriptions are keyed by (org, user, endpoint); a cluster-bound token sees only its cluster's deliveries
 * and nobody without alerting:configure sees a channel URL in clear.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createOpenApiFetchHandler } from 'trpc-to-openapi';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listPushSubscriptions, type TDb } from '@clusterscope/db';
import { generateVapidKeys } from '@clusterscope/services/alerting';
import { createOutbound, type TDeps } from '@clusterscope/services/core';
import { createToken } from '@clusterscope/services/tenancy';
import { openTestDeps } from './test-deps';
import { appRouter } from './root';
import { createCallerFactory, retryAfterHeaders, type TContext } from './trpc';

let db: TDb;
let strict: TDeps;
let allowed: TDeps;
let close: (() => Promise<void>) | undefined;
let orgId: string;
let clusterX: string;
let clusterY: string;
let adminToken: string;
const users: Record<string, string> = {};

/** The canary: every request that reaches it is recorded; it answers 500 with something secret. */
const hits: string[] = [];
const bodies: string[] = [];
let canary: Server;
let port = 0;
const SECRET_BODY = 'SECRET-INTERNAL-DATA: root:x:0:0:root:/root:/bin/bash';

beforeAll(async () => {
  canary = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(req.url?.startsWith('/ok') ? 200 : 500).end(SECRET_BODY);
    });
  });
  await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
  port = (canary.address() as AddressInfo).port;
  const opened = await openTestDeps();
  ({ db, close } = opened);
  const v = generateVapidKeys();
  const vapid = { publicKey: v.publicKey, privateKey: v.privateKey, subject: 'mailto:oncall@app.test' };
  strict = { ...opened.deps, vapid };
  allowed = { ...opened.deps, vapid, outbound: createOutbound({ allow: '127.0.0.1/32' }) };
  orgId = (await db.organization.create({ data: { id: randomUUID(), name: 'O', slug: 'org-out' } })).id;
  clusterX = (await db.cluster.create({ data: { organizationId: orgId, name: 'x' } })).id;
  clusterY = (await db.cluster.create({ data: { organizationId: orgId, name: 'y' } })).id;
  adminToken = (await createToken(strict, orgId, { name: 'ci', scopes: ['admin'] })).token;
  // admin2: a second admin whose "Send test" budget no other test spends.
  for (const name of ['viewer', 'member', 'admin', 'admin2']) {
    const role = name === 'admin2' ? 'admin' : name;
    const u = await db.user.create({ data: { id: randomUUID(), name, email: `${name}@out.test` } });
    await db.member.create({ data: { id: randomUUID(), organizationId: orgId, userId: u.id, role } });
    users[name] = u.id;
  }
}, 120_000);
afterAll(async () => {
  await close?.();
  await new Promise((r) => canary.close(r));
});
beforeEach(() => {
  hits.length = 0;
  bodies.length = 0;
});

const factory = createCallerFactory(appRouter);
const as = (role: string, deps = strict, slug = 'org-out') =>
  factory({ deps, userId: users[role]!, bearer: null, orgSlug: slug });

/** One tRPC mutation over HTTP with the admin token: status, Retry-After and the error message. */
async function trpc(deps: TDeps, path: string, input: unknown) {
  const res = await fetchRequestHandler({
    endpoint: '/api/trpc',
    req: new Request(`http://127.0.0.1/api/trpc/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    }),
    router: appRouter,
    createContext: (): TContext => ({ deps, userId: null, bearer: adminToken, orgSlug: null }),
    responseMeta: ({ errors }) => ({ headers: retryAfterHeaders(errors) }),
  });
  const body = (await res.json()) as { error?: { message: string } };
  return { status: res.status, retryAfter: res.headers.get('retry-after'), message: body.error?.message };
}

/** A channel row as one saved before the check existed (its URL aims inward). */
const insertChannel = (kind: string, config: object) =>
  db.notificationChannel.create({
    data: { organizationId: orgId, name: `old-${randomUUID().slice(0, 8)}`, kind, config },
  });

describe('destinations that are not public', () => {
  it.each([
    ['webhook', { url: 'http://127.0.0.1:9/' }, { hmacSecret: 'k' }, 'config.url'],
    ['webhook', { url: 'http://2130706433/' }, { hmacSecret: 'k' }, 'config.url'],
    ['webhook', { url: 'http://0x7f.1/' }, { hmacSecret: 'k' }, 'config.url'],
    ['webhook', { url: 'http://localhost:5432/' }, { hmacSecret: 'k' }, 'config.url'],
    ['webhook', { url: 'http://10.0.0.1/' }, { hmacSecret: 'k' }, 'config.url'],
    ['ntfy', { url: 'http://169.254.169.254/latest/meta-data/' }, { token: '' }, 'config.url'],
    ['ntfy', { url: 'http://[::ffff:127.0.0.1]/topic' }, { token: '' }, 'config.url'],
    ['slack', {}, { url: 'http://[::1]:8080/hook' }, 'secret.url'],
  ])(
    'a %s channel with config %j, secret %j is refused on save with a 400 naming %s',
    async (kind, config, secret, field) => {
      const r = await trpc(strict, 'alerting.createChannel', { name: randomUUID(), kind, config, secret });
      expect(r.status).toBe(400);
      expect(r.message).toMatch(new RegExp(`^${field.replace('.', '\\.')}: .* OUTBOUND_ALLOW`));
    },
  );

  it('an update to an inward URL is refused too', async () => {
    const c = await as('admin').alerting.createChannel({
      name: `pub-${randomUUID().slice(0, 8)}`,
      kind: 'webhook',
      config: { url: 'https://8.8.8.8/hook' },
      secret: { hmacSecret: 'k' },
    });
    const r = await trpc(strict, 'alerting.updateChannel', {
      id: c.id,
      kind: 'webhook',
      config: { url: `http://127.0.0.1:${port}/x` },
      secret: { hmacSecret: '***' },
    });
    expect(r.status).toBe(400);
    expect(r.message).toMatch(/^config\.url: /);
  });

  it('a channel saved before the check is refused at send time: nothing reaches the canary', async () => {
    const c = await insertChannel('webhook', { url: `http://127.0.0.1:${port}/hook` });
    const d = await as('admin').alerting.testChannel({ id: c.id });
    expect(d.lastError).toBe('destination refused: not a public address');
    expect(hits).toEqual([]);
  });

  it('OUTBOUND_ALLOW lets the operator reach it; the log keeps the status, never the body', async () => {
    const c = await as('admin', allowed).alerting.createChannel({
      name: `canary-${randomUUID().slice(0, 8)}`,
      kind: 'webhook',
      config: { url: `http://127.0.0.1:${port}/fail` },
      secret: { hmacSecret: 'k' },
    });
    const d = await as('admin', allowed).alerting.testChannel({ id: c.id });
    expect(hits).toEqual(['POST /fail']);
    expect(d.lastError).toBe('HTTP 500');
    const row = await db.delivery.findUniqueOrThrow({ where: { id: d.id } });
    expect(row.lastError).toBe('HTTP 500');
    expect(JSON.stringify(await as('viewer').pages.channels())).not.toContain('SECRET-INTERNAL');
  });

  it('a body stored by an older version is not shown', async () => {
    const c = await insertChannel('webhook', { url: 'https://8.8.8.8/hook' });
    await db.delivery.create({
      data: {
        organizationId: orgId,
        channelId: c.id,
        kind: 'test',
        payload: {},
        status: 'failed',
        lastError: `HTTP 500: ${SECRET_BODY}`,
      },
    });
    const page = await as('viewer').pages.channels();
    const log = page.channels.find((x) => x.id === c.id)!.deliveries;
    expect(log.map((d) => d.lastError)).toEqual(['HTTP 500']);
  });
});

describe('Slack/Mattermost text', () => {
  it('a channel name cannot mention everyone or show a link of its own', async () => {
    const c = await as('admin', allowed).alerting.createChannel({
      name: '@channel @here <!everyone> [log in](https://evil.example/login) www.evil.example',
      kind: 'slack',
      secret: { url: `http://127.0.0.1:${port}/ok/slack` },
    });
    await as('admin', allowed).alerting.testChannel({ id: c.id });
    expect(hits).toEqual(['POST /ok/slack']);
    const text = (JSON.parse(bodies[0]!) as { text: string }).text;
    expect(text).toContain('channel');
    expect(text).not.toMatch(/@channel|@here|<!|\]\(|https:\/\/evil|www\.evil/);
  });
});

describe('"Send test" rate limit', () => {
  it('per channel: the sixth within a minute answers 429 with Retry-After', async () => {
    const c = await as('admin', allowed).alerting.createChannel({
      name: `rl-${randomUUID().slice(0, 8)}`,
      kind: 'webhook',
      config: { url: `http://127.0.0.1:${port}/ok` },
      secret: { hmacSecret: 'k' },
    });
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof trpc>> | undefined;
    for (let i = 0; i < 8; i++) {
      last = await trpc(allowed, 'alerting.testChannel', { id: c.id });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(Number(last!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(last!.message).toMatch(/per channel/);
    expect(hits).toHaveLength(5);
  });

  it('per person: across channels, past 20 a minute answers TOO_MANY_REQUESTS', async () => {
    const channels = await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        as('admin', allowed).alerting.createChannel({
          name: `rlu-${i}-${randomUUID().slice(0, 8)}`,
          kind: 'webhook',
          config: { url: `http://127.0.0.1:${port}/ok` },
          secret: { hmacSecret: 'k' },
        }),
      ),
    );
    const outcomes: string[] = [];
    for (const c of channels)
      for (let i = 0; i < 5; i++)
        outcomes.push(
          await as('admin2', allowed)
            .alerting.testChannel({ id: c.id })
            .then(
              () => 'ok',
              (e: { code?: string }) => e.code ?? 'error',
            ),
        );
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(20);
    expect(outcomes.slice(20)).toEqual(Array(5).fill('TOO_MANY_REQUESTS'));
  });
});

describe('Web Push endpoints', () => {
  it.each([
    ['https://127.0.0.1:8443/push/x', /^endpoint: 127\.0\.0\.1:8443 is a loopback address/],
    ['https://[::1]/push/x', /^endpoint: .* is /],
    ['https://10.0.0.7/push/x', /^endpoint: 10\.0\.0\.7 is a private address/],
    ['http://push.example.net/x', /^endpoint: must be an https URL/],
  ])('subscribe refuses %s', async (endpoint, message) => {
    await expect(
      as('viewer').alerting.subscribePush({
        endpoint,
        keys: { p256dh: 'B'.repeat(20), auth: 'a'.repeat(12) },
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(message) });
  });

  it('a subscription saved before the check is refused at send time with one fixed reason', async () => {
    const closed = await new Promise<number>((r) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => r(p));
      });
    });
    const channel = await insertChannel('push', { userIds: [users.member!] });
    const reasons: (string | null)[] = [];
    for (const [deps, p] of [
      [strict, port],
      [allowed, port],
      [allowed, closed],
    ] as const) {
      await db.pushSubscription.deleteMany({ where: { userId: users.member! } });
      await db.pushSubscription.create({
        data: {
          organizationId: orgId,
          userId: users.member!,
          endpoint: `https://127.0.0.1:${p}/push/x`,
          p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
          auth: 'tBHItJI5svbpez7KI4CCXg',
        },
      });
      const d = await as('admin', deps).alerting.testChannel({ id: channel.id });
      reasons.push(d.lastError);
    }
    expect(hits).toEqual([]);
    // Refused outright without an allowance; with one, a plain-HTTP port and a closed port read the same.
    expect(reasons).toEqual([
      'push failed: push endpoint refused: not https on a public address',
      'push failed: connection failed',
      'push failed: connection failed',
    ]);
  });
});

describe('push subscriptions per (organization, user, endpoint)', () => {
  it('a user in two orgs has a row in each; another org subscribing the same endpoint takes nothing', async () => {
    const org2 = (await db.organization.create({ data: { id: randomUUID(), name: 'T', slug: 'org-two' } }))
      .id;
    const org3 = (await db.organization.create({ data: { id: randomUUID(), name: 'M', slug: 'org-mal' } }))
      .id;
    await db.member.create({
      data: { id: randomUUID(), organizationId: org2, userId: users.viewer!, role: 'viewer' },
    });
    const mallory = (await db.user.create({ data: { id: randomUUID(), name: 'm', email: 'm@evil.test' } }))
      .id;
    users.mallory = mallory;
    await db.member.create({
      data: { id: randomUUID(), organizationId: org3, userId: mallory, role: 'owner' },
    });
    const sub = {
      endpoint: `https://push.example.net/${randomUUID()}`,
      keys: { p256dh: 'B'.repeat(20), auth: 'a'.repeat(12) },
    };

    await as('viewer').alerting.subscribePush(sub);
    await as('viewer', strict, 'org-two').alerting.subscribePush(sub);
    await as('mallory', strict, 'org-mal').alerting.subscribePush({
      ...sub,
      keys: { p256dh: 'M'.repeat(20), auth: 'm'.repeat(12) },
    });

    const of = async (o: string) =>
      (await listPushSubscriptions(db, o, [])).filter((s) => s.endpoint === sub.endpoint);
    expect((await of(orgId)).map((s) => [s.userId, s.p256dh])).toEqual([[users.viewer, 'B'.repeat(20)]]);
    expect((await of(org2)).map((s) => s.userId)).toEqual([users.viewer]);
    expect((await of(org3)).map((s) => s.userId)).toEqual([mallory]);

    await expect(as('viewer').alerting.unsubscribePush({ endpoint: sub.endpoint })).resolves.toEqual({
      removed: true,
    });
    expect(await of(orgId)).toEqual([]);
    expect(await of(org2)).toHaveLength(1);
    expect(await of(org3)).toHaveLength(1);
  });
});

describe('who reads channels and their log', () => {
  it('a token bound to one cluster sees only that cluster’s deliveries; URLs are in clear only for configurers', async () => {
    const hookUrl = `https://8.8.8.8/hooks/${randomUUID()}`;
    const topicUrl = `https://ntfy.example.net/topic-${randomUUID()}`;
    const hook = await as('admin').alerting.createChannel({
      name: `t-hook-${randomUUID().slice(0, 8)}`,
      kind: 'webhook',
      config: { url: hookUrl },
      secret: { hmacSecret: 'k' },
    });
    const ntfy = await as('admin').alerting.createChannel({
      name: `t-ntfy-${randomUUID().slice(0, 8)}`,
      kind: 'ntfy',
      config: { url: topicUrl },
    });
    const delivery = (title: string, clusterId: string | null) =>
      db.delivery.create({
        data: {
          organizationId: orgId,
          channelId: hook.id,
          kind: 'firing',
          title,
          payload: { clusterId },
          status: 'sent',
        },
      });
    await delivery('about x', clusterX);
    await delivery('about y', clusterY);
    await delivery('org-wide test', null);

    const bound = (
      await createToken(strict, orgId, { name: 'x-only', scopes: ['read'], clusterId: clusterX })
    ).token;
    const asBound = factory({ deps: strict, userId: null, bearer: bound, orgSlug: null });
    const page = await asBound.pages.channels();
    expect(page.channels.find((c) => c.id === hook.id)!.deliveries.map((d) => d.title)).toEqual(['about x']);
    const seen = JSON.stringify([page, await asBound.alerting.channels()]);
    for (const role of ['viewer', 'member'])
      for (const v of [await as(role).pages.channels(), await as(role).alerting.channels()]) {
        const json = JSON.stringify(v);
        expect(json).not.toContain(hookUrl);
        expect(json).not.toContain(topicUrl);
        expect(json).toContain('https://ntfy.example.net/***');
      }
    expect(seen).not.toContain(hookUrl);
    expect(seen).not.toContain(topicUrl);
    const admin = await as('admin').alerting.channels();
    expect(admin.find((c) => c.id === ntfy.id)!.config).toEqual({ url: topicUrl });
    expect(admin.find((c) => c.id === hook.id)!.config).toEqual({ url: hookUrl });
  });

  it('email recipients are in clear only for configurers, in pages, tRPC and REST', async () => {
    const to = [`oncall-${randomUUID().slice(0, 8)}@corp.example`, 'cto@corp.example'];
    const mail = await insertChannel('email', { to });
    const readToken = (await createToken(strict, orgId, { name: 'reader', scopes: ['read'] })).token;
    const rest = async (path: string) => {
      const res = await createOpenApiFetchHandler({
        endpoint: '/api/v1',
        req: new Request(`http://127.0.0.1/api/v1${path}`, {
          headers: { authorization: `Bearer ${readToken}` },
        }),
        router: appRouter,
        createContext: (): TContext => ({ deps: strict, userId: null, bearer: readToken, orgSlug: null }),
      });
      expect(res.status).toBe(200);
      return res.json() as Promise<unknown>;
    };
    const asToken = factory({ deps: strict, userId: null, bearer: readToken, orgSlug: null });
    const views: unknown[] = [
      await rest('/alerting/channels'),
      await rest(`/alerting/channels/${mail.id}`),
      await asToken.pages.channels(),
    ];
    for (const role of ['viewer', 'member'])
      views.push(
        await as(role).pages.channels(),
        await as(role).alerting.channels(),
        await as(role).alerting.channel({ id: mail.id }),
      );
    for (const v of views) {
      const json = JSON.stringify(v);
      for (const address of to) expect(json).not.toContain(address);
      expect(json).toContain('***@corp.example');
    }
    for (const v of [
      (await as('admin').alerting.channels()).find((c) => c.id === mail.id),
      await as('admin').alerting.channel({ id: mail.id }),
      (await as('admin').pages.channels()).channels.find((c) => c.id === mail.id),
    ])
      expect(v!.config).toEqual({ to });
  });
});
