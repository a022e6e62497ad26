/**
 * alerting.* through the real REST adapter: hostile input answers 4xx naming the field (never 5xx), secrets
 * never come back, and roles hold (viewers read, members ack and silence, admins configure).
 */
import { randomUUID } from 'node:crypto';
import { createOpenApiFetchHandler } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TDb } from '@clusterscope/db';
import { createToken, type TDeps } from '@clusterscope/services';
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
      as('viewer').createSilence({ clusterId, endsAt: new Date(Date.now() + 60_000) }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(
      as('member').createSilence({ clusterId, endsAt: new Date(Date.now() + 60_000) }),
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
