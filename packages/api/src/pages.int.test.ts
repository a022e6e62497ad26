/**
 * The one-call page views (`pages.*`) on real stores: each answers what its page renders, in one call,
 * within the caller's org.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TDb } from '@clusterscope/db';
import { type TDeps } from '@clusterscope/services/core';
import { createToken } from '@clusterscope/services/tenancy';
import { openTestDeps } from './test-deps';
import { appRouter } from './root';
import { createCallerFactory } from './trpc';

let db: TDb;
let deps: TDeps;
let close: (() => Promise<void>) | undefined;
const factory = createCallerFactory(appRouter);
let api: ReturnType<typeof factory>;
let other: ReturnType<typeof factory>;
let owner: ReturnType<typeof factory>;
let orgId: string;
let otherOrgId: string;

const hook = (name: string) => ({
  name,
  kind: 'webhook' as const,
  config: { url: 'https://8.8.8.8/hook' },
  secret: { hmacSecret: 's3cret-value' },
});

beforeAll(async () => {
  ({ db, deps, close } = await openTestDeps());
  const org = await db.organization.create({ data: { id: randomUUID(), name: 'O', slug: 'org-o' } });
  const org2 = await db.organization.create({ data: { id: randomUUID(), name: 'P', slug: 'org-p' } });
  orgId = org.id;
  otherOrgId = org2.id;
  api = factory({
    deps,
    userId: null,
    bearer: (await createToken(deps, orgId, { name: 'ci', scopes: ['admin'] })).token,
    orgSlug: null,
  });
  other = factory({
    deps,
    userId: null,
    bearer: (await createToken(deps, otherOrgId, { name: 'ci', scopes: ['admin'] })).token,
    orgSlug: null,
  });
  const user = await db.user.create({ data: { id: randomUUID(), name: 'Ada', email: 'ada@example.com' } });
  for (const o of [org, org2])
    await db.member.create({
      data: { id: randomUUID(), organizationId: o.id, userId: user.id, role: 'owner' },
    });
  owner = factory({ deps, userId: user.id, bearer: null, orgSlug: 'org-o' });
}, 120_000);

afterAll(() => close?.());

it("pages.channels: each channel with its 20 newest deliveries, newest first, none of another org's", async () => {
  const busy = await api.alerting.createChannel(hook('busy'));
  const quiet = await api.alerting.createChannel(hook('quiet'));
  const foreign = await other.alerting.createChannel(hook('busy'));
  const t0 = Date.now() - 3_600_000;
  const deliveries = (org: string, channelId: string, n: number, title: string) =>
    db.delivery.createMany({
      data: Array.from({ length: n }, (_, k) => ({
        organizationId: org,
        channelId,
        kind: 'firing',
        title: `${title} ${k}`,
        payload: {},
        createdAt: new Date(t0 + k * 1000),
      })),
    });
  await deliveries(orgId, busy.id, 25, 'busy');
  await deliveries(orgId, quiet.id, 3, 'quiet');
  await deliveries(otherOrgId, foreign.id, 5, 'foreign');

  const page = await api.pages.channels();
  const by = Object.fromEntries(page.channels.map((c) => [c.name, c.deliveries.map((d) => d.title)]));
  expect(Object.keys(by).sort()).toEqual(['busy', 'quiet']);
  expect(by.busy).toEqual(Array.from({ length: 20 }, (_, k) => `busy ${24 - k}`));
  expect(by.quiet).toEqual(['quiet 2', 'quiet 1', 'quiet 0']);
  expect(JSON.stringify(page)).not.toContain('foreign');
  expect(JSON.stringify(page)).not.toContain('s3cret-value');
});

it('pages.workloads: the verdict of each workload to its newest run, in one call', async () => {
  const c = await api.clusters.create({ name: 'bench' });
  const w = await api.workloads.create({
    name: 'oltp',
    tool: 'pgbench',
    params: {},
    target: 'postgres://bench@127.0.0.1:5432/bench',
  });
  await api.workloads.create({ name: 'idle', tool: 'fio', params: {}, target: '/tmp/fio' });
  const started = (min: number) => new Date(Date.now() - min * 60_000).toISOString();
  await api.runs.create({ cluster: c.id, workload: w.name, tool: 'pgbench', startedAt: started(30) });
  const newest = await api.runs.create({
    cluster: c.id,
    workload: w.name,
    tool: 'pgbench',
    startedAt: started(5),
  });
  const page = await api.pages.workloads();
  expect(page.workloads.map((x) => x.name).sort()).toEqual(['idle', 'oltp']);
  const idle = page.workloads.find((x) => x.name === 'idle')!;
  expect(page.verdicts[idle.id]).toBeNull();
  // Still running: the newest run, without a verdict yet.
  expect(page.verdicts[w.id]).toEqual({ verdict: null, reason: '', runId: newest.id });
  expect(page.clusters).toContainEqual({ id: c.id, name: 'bench' });
});

it('pages.runs: the page of runs, its total and the clusters from one read of the runs', async () => {
  const page = await api.pages.runs({ workload: 'oltp', limit: 1 });
  expect(page.runs).toHaveLength(1);
  expect(page.meta.total).toBe(2);
  expect(page.clusters.map((c) => c.name)).toContain('bench');
  expect((await other.pages.runs({})).meta.total).toBe(0);
});

it('pages.nav and pages.members: the org of the URL with the role, the switcher, members and invitations', async () => {
  const nav = await owner.pages.nav();
  expect(nav.org).toEqual({ id: orgId, slug: 'org-o', role: 'owner' });
  expect(nav.orgs.map((o) => o.slug).sort()).toEqual(['org-o', 'org-p']);
  await owner.orgs.invite({ email: 'bob@example.com', role: 'viewer' });
  const members = await owner.pages.members();
  expect(members.members.map((m) => m.user.email)).toEqual(['ada@example.com']);
  expect(members.invitations.map((i) => i.email)).toEqual(['bob@example.com']);
});

it('pages.oncall: cluster health and the alert list in one answer', async () => {
  const page = await api.pages.oncall();
  expect(page.oncall.clusters.map((c) => c.cluster.name)).toContain('bench');
  expect(page.alerting).toMatchObject({ alerts: [], members: [] });
});
