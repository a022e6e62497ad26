/**
 * alerting.* through the real REST adapter: hostile input answers 4xx naming the field (never 5xx), secrets
 * never come back, and roles hold (viewers read, members ack and silence, admins configure).
 */
import { randomUUID } from 'node:crypto';
import { createOpenApiFetchHandler } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TDb } from '@clusterscope/db';
import { type TDeps } from '@clusterscope/services/core';
import { createToken } from '@clusterscope/services/tenancy';
import { BUILTIN_RULES } from '@clusterscope/schema';
import { openTestDeps } from '../test-deps';
import { appRouter } from '../root';
import { createCallerFactory, type TContext } from '../trpc';

let db: TDb;
let deps: TDeps;
let token: string;
let close: (() => Promise<void>) | undefined;
let orgId: string;
let clusterId: string;
const users: Record<string, string> = {};

beforeAll(async () => {
  ({ db, deps, close } = await openTestDeps());
  orgId = (await db.organization.create({ data: { id: randomUUID(), name: 'A', slug: 'org-a' } })).id;
  clusterId = (await db.cluster.create({ data: { organizationId: orgId, name: 'prod' } })).id;
  token = (await createToken(deps, orgId, { name: 'ci', scopes: ['admin'] })).token;
  for (const role of ['viewer', 'member', 'admin']) {
    const u = await db.user.create({ data: { id: randomUUID(), name: role, email: `${role}@a.test` } });
    await db.member.create({ data: { id: randomUUID(), organizationId: orgId, userId: u.id, role } });
    users[role] = u.id;
  }
}, 120_000);
afterAll(() => close?.());

const rest = async (method: string, path: string, body?: unknown) => {
  const res = await createOpenApiFetchHandler({
    endpoint: '/api/v1',
    req: new Request(`http://127.0.0.1/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    router: appRouter,
    createContext: (): TContext => ({ deps, userId: null, bearer: token, orgSlug: null }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const as = (role: string) =>
  createCallerFactory(appRouter)({ deps, userId: users[role]!, bearer: null, orgSlug: 'org-a' }).alerting;

describe('alerting REST', () => {
  it('rules CRUD with validation naming the field', async () => {
    const created = await rest('POST', '/alerting/rules', {
      name: 'disk',
      clusterId,
      series: 'node.capacity_pct',
      comparison: 'gt',
      threshold: 70,
      forS: 120,
      severity: 'warning',
      runbookUrl: 'https://runbooks.example/disk',
    });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    expect((await rest('PATCH', `/alerting/rules/${id}`, { threshold: 75 })).body).toMatchObject({
      threshold: 75,
      forS: 120,
      runbookUrl: 'https://runbooks.example/disk',
    });
    const list = await rest('GET', `/alerting/rules?clusterId=${clusterId}`);
    expect((list.body as unknown as { builtin: string | null }[]).filter((r) => r.builtin)).toHaveLength(
      BUILTIN_RULES.length,
    );
    expect((await rest('DELETE', `/alerting/rules/${id}`)).body).toEqual({ id, deleted: true });
    expect((await rest('GET', `/alerting/rules/${id}`)).status).toBe(404);

    const bad = [
      { series: 'node.nope' },
      { comparison: '>' },
      { severity: 'page' },
      { forS: -1 },
      { threshold: 'x' },
      { runbookUrl: 'javascript:alert(1)' },
      { name: '' },
    ];
    for (const b of bad) {
      const r = await rest('POST', '/alerting/rules', {
        name: 'r',
        series: 'node.down',
        comparison: 'gt',
        threshold: 0,
        severity: 'critical',
        ...b,
      });
      expect([Object.keys(b)[0], r.status]).toEqual([Object.keys(b)[0], 400]);
      expect(JSON.stringify(r.body)).toContain(Object.keys(b)[0]);
    }
  });

  it('metric rules over REST: created, echoed, and validated like the UI (field named)', async () => {
    // The field is named as `metric.quantile` in a message or as an issue path ["metric","quantile"].
    const names = (body: unknown, field: string) => {
      const j = JSON.stringify(body);
      return j.includes(field) || j.includes(JSON.stringify(field.split('.')).slice(0, -1));
    };
    const base = {
      name: 'p99',
      clusterId,
      series: 'metric',
      comparison: 'gt',
      threshold: 500,
      severity: 'warning',
    };
    const ok = await rest('POST', '/alerting/rules', {
      ...base,
      metric: {
        name: 'sql_service_latency',
        matchers: { app: 'billing' },
        fn: 'quantile',
        quantile: 0.99,
        scale: 1e-6,
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.metric).toEqual({
      name: 'sql_service_latency', matchers: { app: 'billing' }, fn: 'quantile', quantile: 0.99, scale: 1e-6, windowS: 120,
    }); // prettier-ignore
    const id = ok.body.id as string;
    const cases: [unknown, number, string][] = [
      [{ ...base }, 400, 'metric'],
      [{ ...base, metric: { name: 'x', fn: 'quantile' } }, 400, 'metric.quantile'],
      [{ ...base, metric: { name: 'x', fn: 'ratio' } }, 400, 'metric.per'],
      [{ ...base, metric: { name: "x'); DROP", fn: 'rate' } }, 400, 'metric.name'],
      [{ ...base, metric: { name: 'x', fn: 'rate', matchers: { 'a b': 'c' } } }, 400, 'metric.matchers'],
      [{ ...base, series: 'node.down', metric: { name: 'x', fn: 'rate' } }, 400, 'metric'],
    ];
    for (const [body, status, field] of cases) {
      const r = await rest('POST', '/alerting/rules', body);
      expect([field, r.status]).toEqual([field, status]);
      expect([field, names(r.body, field)]).toEqual([field, true]);
    }
    const patch = await rest('PATCH', `/alerting/rules/${id}`, {
      metric: { name: 'x', fn: 'gauge', quantile: 0.5 },
    });
    expect([patch.status, names(patch.body, 'metric.quantile')]).toEqual([400, true]);
    expect((await rest('PATCH', `/alerting/rules/${id}`, { series: 'node.down' })).status).toBe(400);
    expect((await rest('DELETE', `/alerting/rules/${id}`)).status).toBe(200);
  });

  it('hostile list filters and silence dates answer 400, unknown ids 404', async () => {
    expect((await rest('GET', '/alerting/alerts?state=bogus')).status).toBe(400);
    expect((await rest('GET', '/alerting/alerts?from=abc')).status).toBe(400);
    expect((await rest('GET', '/alerting/alerts?state=firing,pending&severity=critical')).status).toBe(200);
    for (const endsAt of ['-271821-04-20T00:00:00Z', 'soon', '9999-01-01T00:00:00Z'])
      expect((await rest('POST', '/alerting/silences', { endsAt })).status).toBe(400);
    expect((await rest('POST', '/alerting/silences', { endsAt: '2000-01-01T00:00:00Z' })).status).toBe(400);
    expect((await rest('POST', '/alerting/ack', { ids: ['nope'] })).status).toBe(404);
    expect((await rest('POST', '/alerting/silences/nope/expire', {})).status).toBe(404);
  });
});

describe('alerting roles and secrets', () => {
  it('viewers read, members silence but do not configure, admins configure; secrets stay ***', async () => {
    await expect(as('viewer').rules({})).resolves.toBeInstanceOf(Array);
    await expect(
      as('viewer').createSilence({ clusterId, endsAt: new Date(Date.now() + 60_000), comment: 'c' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(
      as('member').createSilence({ clusterId, endsAt: new Date(Date.now() + 60_000), comment: 'c' }),
    ).resolves.toMatchObject({ active: true });
    const hook = {
      name: 'h',
      kind: 'webhook' as const,
      config: { url: 'https://8.8.8.8/hook' },
      secret: { hmacSecret: 's3cret-value' },
    };
    await expect(as('member').createChannel(hook)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const c = await as('admin').createChannel(hook);
    expect(JSON.stringify(c)).not.toContain('s3cret-value');
    expect(JSON.stringify(await as('viewer').channels())).not.toContain('s3cret-value');
    // Sending *** back keeps the stored secret; the row holds only the sealed value.
    await as('admin').updateChannel({
      id: c.id,
      kind: 'webhook',
      config: { url: 'https://8.8.4.4/hook' },
      secret: { hmacSecret: '***' },
    });
    const row = await db.notificationChannel.findUniqueOrThrow({ where: { id: c.id } });
    expect(row.secret).toMatch(/^v1\./);
    expect(row.secret).not.toContain('s3cret');
    expect(row.config).toEqual({ url: 'https://8.8.4.4/hook' });
  });
});

describe('silences', () => {
  const soon = () => new Date(Date.now() + 3_600_000).toISOString();
  let ruleId: string;
  let otherClusterId: string;
  const instance = (
    cluster: string,
    node: number,
    state: string,
    at: { active: number; resolved?: number },
  ) =>
    db.alertInstance.create({
      data: {
        organizationId: orgId,
        ruleId,
        clusterId: cluster,
        key: `node=${node}`,
        labels: { node: String(node) },
        state,
        severity: 'critical',
        activeAt: new Date(at.active),
        firedAt: new Date(at.active),
        resolvedAt: at.resolved === undefined ? null : new Date(at.resolved),
      },
    });

  beforeAll(async () => {
    otherClusterId = (await db.cluster.create({ data: { organizationId: orgId, name: 'staging' } })).id;
    const r = await rest('POST', '/alerting/rules', {
      name: 'down',
      series: 'node.down',
      comparison: 'gt',
      threshold: 0,
      severity: 'critical',
    });
    ruleId = r.body.id as string;
  });

  it('need at least one matcher and a comment (400 naming the field)', async () => {
    const none = await rest('POST', '/alerting/silences', { endsAt: soon(), comment: 'maintenance' });
    expect(none.status).toBe(400);
    expect(JSON.stringify(none.body)).toContain('at least one of cluster, node or rule');
    const nulls = await rest('POST', '/alerting/silences', {
      clusterId: null,
      nodeId: null,
      ruleId: null,
      endsAt: soon(),
      comment: 'maintenance',
    });
    expect(nulls.status).toBe(400);
    for (const comment of [undefined, '', '   ']) {
      const r = await rest('POST', '/alerting/silences', { clusterId, endsAt: soon(), comment });
      expect([comment, r.status]).toEqual([comment, 400]);
      expect(JSON.stringify(r.body)).toContain('comment');
    }
    const ok = await rest('POST', '/alerting/silences', { nodeId: 99, endsAt: soon(), comment: 'disk swap' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ nodeId: 99, comment: 'disk swap', active: true });
  });

  it('preview lists the pending and firing alerts the matchers would mute now, nothing else', async () => {
    const now = Date.now();
    const firing2 = await instance(clusterId, 2, 'firing', { active: now - 60_000 });
    const pending3 = await instance(clusterId, 3, 'pending', { active: now - 10_000 });
    await instance(clusterId, 4, 'resolved', { active: now - 600_000, resolved: now - 300_000 });
    const elsewhere = await instance(otherClusterId, 2, 'firing', { active: now - 60_000 });

    const ids = async (m: object) => {
      const r = await rest('POST', '/alerting/silences/preview', m);
      expect(r.status).toBe(200);
      return (r.body as unknown as { id: string }[]).map((a) => a.id).sort();
    };
    expect(await ids({ clusterId })).toEqual([firing2.id, pending3.id].sort());
    expect(await ids({ nodeId: 2 })).toEqual([firing2.id, elsewhere.id].sort());
    expect(await ids({ clusterId, nodeId: 2, ruleId })).toEqual([firing2.id]);
    expect(await ids({ clusterId, nodeId: 4 })).toEqual([]);
    const none = await rest('POST', '/alerting/silences/preview', {});
    expect(none.status).toBe(400);
    expect(JSON.stringify(none.body)).toContain('at least one of cluster, node or rule');
    // Preview saves nothing.
    expect(await db.silence.count({ where: { organizationId: orgId, clusterId: otherClusterId } })).toBe(0);
    await db.alertInstance.deleteMany({ where: { organizationId: orgId } });
  });

  it('marks silenced only alerts that were active while the silence was', async () => {
    const now = Date.now();
    // Resolved 5 min before the silence was made: it muted nothing of this one.
    const before = await instance(otherClusterId, 5, 'resolved', {
      active: now - 900_000,
      resolved: now - 300_000,
    });
    const firing = await instance(otherClusterId, 6, 'firing', { active: now - 900_000 });
    // Resolved while an earlier silence (now ended) was on: it was silenced.
    const during = await instance(otherClusterId, 7, 'resolved', {
      active: now - 900_000,
      resolved: now - 400_000,
    });
    await db.silence.create({
      data: {
        organizationId: orgId,
        clusterId: otherClusterId,
        nodeId: 7,
        startsAt: new Date(now - 800_000),
        endsAt: new Date(now - 200_000),
        createdBy: 'user:x',
        comment: 'earlier',
      },
    });
    const made = await rest('POST', '/alerting/silences', {
      clusterId: otherClusterId,
      endsAt: soon(),
      comment: 'staging rebuild',
    });
    expect(made.status).toBe(200);

    const list = await rest('GET', `/alerting/alerts?clusterId=${otherClusterId}`);
    const silenced = Object.fromEntries(
      (list.body as unknown as { id: string; silenced: boolean }[]).map((a) => [a.id, a.silenced]),
    );
    expect(silenced).toEqual({ [before.id]: false, [firing.id]: true, [during.id]: true });
    expect((await rest('GET', `/alerting/alerts/${before.id}`)).body.silenced).toBe(false);
    expect((await rest('GET', `/alerting/alerts/${firing.id}`)).body.silenced).toBe(true);
  });
});

describe('channels and routing over REST', () => {
  it('CRUD with secrets write-only: never returned, answered as ***, kept on *** edits', async () => {
    const secret = 'hmac-Very-Secret-42';
    const created = await rest('POST', '/alerting/channels', {
      name: 'ops-hook',
      kind: 'webhook',
      config: { url: 'https://hooks.example.com/ops' },
      secret: { hmacSecret: secret },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: 'ops-hook',
      kind: 'webhook',
      config: { url: 'https://hooks.example.com/ops' },
      secret: { hmacSecret: '***' },
      enabled: true,
    });
    const id = created.body.id as string;
    const got = await rest('GET', `/alerting/channels/${id}`);
    expect(got.body).toMatchObject({ id, secret: { hmacSecret: '***' } });
    const list = await rest('GET', '/alerting/channels');
    expect((list.body as unknown as { id: string }[]).map((c) => c.id)).toContain(id);
    for (const r of [created, got, list]) expect(JSON.stringify(r.body)).not.toContain(secret);

    const renamed = await rest('PATCH', `/alerting/channels/${id}`, { name: 'ops', enabled: false });
    expect(renamed.body).toMatchObject({ name: 'ops', enabled: false, secret: { hmacSecret: '***' } });
    const kept = await rest('PATCH', `/alerting/channels/${id}`, {
      kind: 'webhook',
      config: { url: 'https://hooks.example.com/ops2' },
      secret: { hmacSecret: '***' },
    });
    expect(kept.status).toBe(200);
    const row = await db.notificationChannel.findUniqueOrThrow({ where: { id } });
    expect(row.secret).not.toContain(secret);
    const { openChannelSecret } = await import('@clusterscope/services/alerting');
    expect(openChannelSecret(deps, row)).toEqual({ hmacSecret: secret });
    await rest('PATCH', `/alerting/channels/${id}`, {
      kind: 'webhook',
      config: { url: 'https://hooks.example.com/ops2' },
      secret: { hmacSecret: 'rotated-secret' },
    });
    const rotated = await db.notificationChannel.findUniqueOrThrow({ where: { id } });
    expect(openChannelSecret(deps, rotated)).toEqual({ hmacSecret: 'rotated-secret' });

    // Bad input names the field; unknown ids are 404.
    const bad = await rest('POST', '/alerting/channels', {
      name: 'x',
      kind: 'webhook',
      config: { url: 'ftp://x' },
      secret: { hmacSecret: 's' },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('url');
    const masked = await rest('POST', '/alerting/channels', {
      name: 'y',
      kind: 'webhook',
      config: { url: 'https://hooks.example.com/y' },
      secret: { hmacSecret: '***' },
    });
    expect(masked.status).toBe(400);
    expect((await rest('PATCH', `/alerting/channels/${id}`, { kind: 'slack' })).status).toBe(400);
    expect((await rest('GET', '/alerting/channels/nope')).status).toBe(404);

    // Routing: read and replace; unknown channels are refused.
    const put = await rest('PUT', '/alerting/routing', {
      routes: [{ severity: 'critical', channelIds: [id] }],
      grouping: { groupWaitS: 10, groupIntervalS: 60, repeatIntervalS: 3600 },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ clusterId: null, routes: [{ severity: 'critical', channelIds: [id] }] });
    expect((await rest('GET', '/alerting/routing')).body).toMatchObject({
      routes: [{ severity: 'critical', channelIds: [id] }],
      grouping: { groupWaitS: 10 },
    });
    const cluster = await rest('PUT', '/alerting/routing', {
      clusterId,
      routes: [{ severity: 'warning', channelIds: [id] }],
    });
    expect(cluster.body).toMatchObject({ clusterId, routes: [{ severity: 'warning' }] });
    expect((await rest('GET', `/alerting/routing?clusterId=${clusterId}`)).body).toMatchObject({
      clusterId,
      routes: [{ severity: 'warning', channelIds: [id] }],
    });
    const unknown = await rest('PUT', '/alerting/routing', {
      routes: [{ severity: 'critical', channelIds: ['nope'] }],
    });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('routes.0');

    expect((await rest('DELETE', `/alerting/channels/${id}`)).body).toEqual({ id, deleted: true });
    expect((await rest('GET', `/alerting/channels/${id}`)).status).toBe(404);
  });
});
