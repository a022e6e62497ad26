/**
 * Tenancy across every procedure: a session or token of org B must get NOT_FOUND/FORBIDDEN (or only its own
 * data) from every procedure when it names org A's resources, and org A's data must be unchanged afterwards.
 * A token of org A bound to another cluster of A is tried the same way against cluster A's runs, jobs and
 * alerts (`BOUND` names the procedures where it may legitimately read org-wide rows).
 * The case table must list every procedure of appRouter, so a new procedure fails this test until covered.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertLegacyAgentHeartbeat, type TDb } from '@clusterscope/db';
import { type TDeps } from '@clusterscope/services/core';
import { createToken } from '@clusterscope/services/tenancy';
import { openTestDeps } from './test-deps';
import { appRouter } from './root';
import { createCallerFactory, type TContext } from './trpc';

const fixture = (name: string) =>
  readFileSync(new URL(`../../bench/fixtures/${name}`, import.meta.url), 'utf8');

type TIds = {
  org: string;
  cluster: string;
  token: string;
  member: string;
  workload: string;
  run: string;
  run2: string;
  openRun: string;
  queuedRun: string;
  threshold: string;
  alert: string;
  agent: string;
  email: string;
  alertRule: string;
  channel: string;
  silence: string;
  instance: string;
};

type TCase =
  /** Names A's resources: must fail with NOT_FOUND or FORBIDDEN. */
  | { kind: 'denied'; input: (a: TIds) => unknown }
  /** Lists or acts within the caller's own org: may succeed, but must never return A's ids. */
  | { kind: 'own'; input: (a: TIds) => unknown };

const denied = (input: (a: TIds) => unknown): TCase => ({ kind: 'denied', input });
const own = (input: (a: TIds) => unknown = () => ({})): TCase => ({ kind: 'own', input });
const now = Date.now();
const win = { from: now - 3_600_000, to: now };

const CASES: Record<string, TCase> = {
  'orgs.mine': own(() => undefined),
  'orgs.members': own(() => undefined),
  'orgs.invite': own(() => ({ email: 'nobody@example.com', role: 'viewer' })),
  'orgs.cancelInvitation': denied((a) => ({ id: a.member })),
  'orgs.invitation': own((a) => ({ id: a.member })),
  'orgs.acceptInvitation': own((a) => ({ id: a.member })),
  'orgs.rejectInvitation': own((a) => ({ id: a.member })),
  'orgs.setRole': denied((a) => ({ memberId: a.member, role: 'viewer' })),
  'orgs.removeMember': denied((a) => ({ memberId: a.member })),
  'tokens.list': own(() => undefined),
  'tokens.create': denied((a) => ({ name: 'x', scopes: ['read'], clusterId: a.cluster })),
  'tokens.revoke': denied((a) => ({ id: a.token })),
  'clusters.list': own(),
  'clusters.get': denied((a) => ({ id: a.cluster })),
  'clusters.create': own(() => ({ name: `b-${randomUUID().slice(0, 8)}` })),
  'clusters.update': denied((a) => ({ id: a.cluster, name: 'taken-over' })),
  'clusters.delete': denied((a) => ({ id: a.cluster })),
  'clusters.setSettings': own(() => ({ autoCreate: true })),
  'agents.list': own(() => undefined),
  'agents.enroll': denied((a) => ({ cluster: a.cluster, name: 'b-agent' })),
  'agents.revoke': denied((a) => ({ id: a.agent })),
  'runs.create': denied((a) => ({ cluster: a.cluster, workload: 'w', tool: 'pgbench' })),
  'runs.addSamples': denied((a) => ({ id: a.openRun, samples: [{ elapsed_s: 1, values: { tps: 1 } }] })),
  'runs.addOutput': denied((a) => ({ id: a.openRun, output: fixture('pgbench_tpcb.txt') })),
  'runs.addOutputBytes': denied((a) => ({ id: a.openRun, bytes: Buffer.from(fixture('pgbench_tpcb.txt')) })),
  'runs.addResults': denied((a) => ({ id: a.openRun, metrics: [{ name: 'tps', value: 1 }] })),
  'runs.finish': denied((a) => ({ id: a.openRun, status: 'failed' })),
  'runs.list': own(() => ({})),
  'runs.get': denied((a) => ({ id: a.run })),
  'dashboard.clusters': own(),
  'dashboard.nodes': denied((a) => ({ id: a.cluster })),
  'dashboard.charts': denied((a) => ({ id: a.cluster, ...win })),
  'dashboard.events': denied((a) => ({ id: a.cluster, ...win })),
  'dashboard.nodeView': denied((a) => ({ id: a.cluster, nodeId: 1, ...win })),
  'dashboard.clusterView': denied((a) => ({ id: a.cluster, ...win })),
  'dashboard.chartsView': denied((a) => ({ id: a.cluster, ...win })),
  'dashboard.oncall': own(),
  'compare.run': denied((a) => ({ id: a.run, baseline: a.run2 })),
  'compare.runs': denied((a) => ({ runs: `${a.run},${a.run2}` })),
  'compare.view': denied((a) => ({ runs: [a.run, a.run2] })),
  'compare.runPage': denied((a) => ({ id: a.run, baseline: a.run2 })),
  'compare.runDetail': denied((a) => ({ id: a.run })),
  'compare.report': denied((a) => ({ id: a.run, baseline: a.run2 })),
  'compare.rawOutput': denied((a) => ({ id: a.run })),
  'compare.exportRuns': own(() => ({ format: 'json' })),
  'compare.exportResults': denied((a) => ({ id: a.run, format: 'json' })),
  'compare.exportComparison': denied((a) => ({ runs: `${a.run},${a.run2}`, format: 'json' })),
  'compare.history': denied((a) => ({ workloadId: a.workload })),
  'thresholds.list': own((a) => ({ workloadId: a.workload })),
  'thresholds.save': denied((a) => ({ workloadId: a.workload, metric: 'tps' })),
  'thresholds.delete': denied((a) => ({ id: a.threshold })),
  'regressionAlerts.list': own(() => ({})),
  'regressionAlerts.ack': denied((a) => ({ id: a.alert })),
  'regressionAlerts.triage': denied((a) => ({ id: a.alert, status: 'invalid' })),
  'schedules.list': denied((a) => ({ workloadId: a.workload })),
  'schedules.create': denied((a) => ({ workloadId: a.workload, cron: '0 3 * * *', clusters: ['prod'] })),
  'schedules.delete': denied(() => ({ id: 'nope' })),
  'workloads.list': own(),
  'workloads.get': denied((a) => ({ id: a.workload })),
  'workloads.create': own(() => ({
    name: `b-${randomUUID().slice(0, 8)}`,
    tool: 'hey',
    params: { concurrency: 1 },
    target: 'http://127.0.0.1:9/',
  })),
  'workloads.update': denied((a) => ({ id: a.workload, description: 'taken over' })),
  'workloads.delete': denied((a) => ({ id: a.workload })),
  'workloads.start': denied((a) => ({ id: a.workload, cluster: a.cluster, force: true })),
  'jobs.claim': own((a) => ({ agent: a.agent, wait: 0 })),
  'jobs.lease': denied((a) => ({ id: a.queuedRun, agent: a.agent })),
  'jobs.output': denied((a) => ({ id: a.queuedRun, agent: a.agent, output: 'x' })),
  'jobs.finish': denied((a) => ({ id: a.queuedRun, agent: a.agent, status: 'failed' })),
  'jobs.cancel': denied((a) => ({ id: a.queuedRun })),
  'jobs.progress': denied((a) => ({ id: a.run })),
  'alerting.rules': own(() => ({})),
  'alerting.rule': denied((a) => ({ id: a.alertRule })),
  'alerting.createRule': own(() => ({
    name: `b-${randomUUID().slice(0, 8)}`,
    series: 'node.down',
    comparison: 'gt',
    threshold: 0,
    severity: 'critical',
  })),
  'alerting.updateRule': denied((a) => ({ id: a.alertRule, threshold: 5 })),
  'alerting.deleteRule': denied((a) => ({ id: a.alertRule })),
  'alerting.list': own(() => ({})),
  'alerting.get': denied((a) => ({ id: a.instance })),
  'alerting.series': denied((a) => ({ id: a.instance })),
  'alerting.ack': denied((a) => ({ ids: [a.instance] })),
  'alerting.silences': own(() => ({})),
  'alerting.createSilence': denied((a) => ({
    clusterId: a.cluster,
    endsAt: new Date(now + 3_600_000),
    comment: 'c',
  })),
  'alerting.previewSilence': denied((a) => ({ clusterId: a.cluster })),
  'alerting.previewRule': denied((a) => ({
    clusterId: a.cluster,
    series: 'node.replicas',
    comparison: 'gt',
    threshold: 0,
  })),
  'alerting.expireSilence': denied((a) => ({ id: a.silence })),
  'alerting.channels': own(() => ({})),
  'alerting.channel': denied((a) => ({ id: a.channel })),
  'alerting.createChannel': own(() => ({
    name: `b-${randomUUID().slice(0, 8)}`,
    kind: 'webhook',
    config: { url: 'https://8.8.8.8/hook' },
    secret: { hmacSecret: 'b-secret' },
  })),
  'alerting.updateChannel': denied((a) => ({ id: a.channel, name: 'taken-over' })),
  'alerting.deleteChannel': denied((a) => ({ id: a.channel })),
  'alerting.testChannel': denied((a) => ({ id: a.channel })),
  'alerting.routing': denied((a) => ({ clusterId: a.cluster })),
  'alerting.setRouting': denied((a) => ({ clusterId: a.cluster, routes: [] })),
  'alerting.vapidPublicKey': own(() => ({})),
  'alerting.subscribePush': own(() => ({
    endpoint: 'https://push.example.com/b',
    keys: { p256dh: 'B'.repeat(40), auth: 'b'.repeat(16) },
  })),
  'alerting.unsubscribePush': own(() => ({ endpoint: 'https://push.example.com/a' })),
  'pages.nav': own(() => undefined),
  'pages.cluster': denied((a) => ({ id: a.cluster, ...win })),
  'pages.oncall': own(() => undefined),
  'pages.alerts': own(() => ({})),
  'pages.alert': denied((a) => ({ id: a.instance })),
  'pages.silences': own(() => undefined),
  'pages.channels': own(() => undefined),
  'pages.routing': denied((a) => ({ clusterId: a.cluster })),
  'pages.rules': own(() => undefined),
  'pages.members': own(() => undefined),
  'pages.workloads': own(() => undefined),
  'pages.agents': own(() => undefined),
  'pages.clusters': own(() => undefined),
  'pages.tokens': own(() => undefined),
  'pages.runs': own(() => ({})),
};

/**
 * For a token bound to another cluster of org A, the procedures whose rows are org-wide (not of one cluster):
 * they may answer, but never with cluster A's runs, jobs, alerts or the cluster itself. Every other case
 * keeps its kind: `denied` must fail NOT_FOUND/FORBIDDEN (org-wide writes are FORBIDDEN to bound tokens).
 */
const BOUND: Record<string, TCase['kind']> = {
  'tokens.list': 'own',
  'thresholds.list': 'own',
  'compare.history': 'own',
  'workloads.get': 'own',
  // Workloads are org-wide; a bound token sees only the schedules (and slots) on its own cluster.
  'schedules.list': 'own',
  // Channels are org-wide: a bound token may read their delivery logs (never their secrets).
  'pages.channels': 'own',
  'alerting.channel': 'own',
};
/** Ids of cluster A's rows, which a token bound to another cluster must never see. */
const CLUSTER_SCOPED = [
  'cluster',
  'run',
  'run2',
  'openRun',
  'queuedRun',
  'alert',
  'alertRule',
  'instance',
  'silence',
] as const;

const procedures = Object.keys(
  (appRouter as unknown as { _def: { procedures: Record<string, unknown> } })._def.procedures,
);
const factory = createCallerFactory(appRouter);

let db: TDb;
let deps: TDeps;
let close: (() => Promise<void>) | undefined;
let a: TIds;
const ctxFor = (over: Partial<TContext>): TContext => ({
  deps,
  userId: null,
  bearer: null,
  orgSlug: null,
  runtime: { notify: () => undefined },
  ...over,
});

/** Procedures are called by path, the way the HTTP adapters do. */
async function call(ctx: TContext, path: string, input: unknown): Promise<unknown> {
  const caller = factory(ctx) as unknown as Record<string, Record<string, (i: unknown) => Promise<unknown>>>;
  const [r, p] = path.split('.');
  return caller[r][p](input);
}

async function createUser(email: string) {
  return db.user.create({ data: { id: randomUUID(), name: email, email } });
}

/** Everything of org A that a B caller could try to change. */
async function snapshotA() {
  const org = { organizationId: a.org };
  return JSON.stringify(
    await Promise.all([
      db.member.findMany({ where: org, orderBy: { id: 'asc' } }),
      db.cluster.findMany({ where: org, orderBy: { id: 'asc' } }),
      db.apiToken.findMany({ where: org, orderBy: { id: 'asc' }, select: { id: true, revokedAt: true } }),
      db.workload.findMany({ where: org, orderBy: { id: 'asc' } }),
      db.run.findMany({ where: org, orderBy: { id: 'asc' } }),
      db.threshold.findMany({ where: org, orderBy: { id: 'asc' } }),
      db.regressionAlert.findMany({ where: org, orderBy: { id: 'asc' } }),
      db.alertRule.findMany({ where: org, orderBy: { id: 'asc' } }),
      db.alertInstance.findMany({ where: org, orderBy: { id: 'asc' } }),
      db.silence.findMany({ where: org, orderBy: { id: 'asc' } }),
      db.notificationChannel.findMany({ where: org, orderBy: { id: 'asc' } }),
      db.alertRoute.findMany({ where: org, orderBy: { id: 'asc' } }),
      db.pushSubscription.findMany({ where: org, orderBy: { id: 'asc' } }),
      db.run.count(),
    ]),
  );
}

beforeAll(async () => {
  ({ db, deps, close } = await openTestDeps());

  const ua = await createUser('owner-a@example.com');
  const ub = await createUser('owner-b@example.com');
  const orgA = await db.organization.create({ data: { id: randomUUID(), name: 'A', slug: 'org-a' } });
  const orgB = await db.organization.create({ data: { id: randomUUID(), name: 'B', slug: 'org-b' } });
  const memberA = await db.member.create({
    data: { id: randomUUID(), organizationId: orgA.id, userId: ua.id, role: 'owner' },
  });
  await db.member.create({
    data: { id: randomUUID(), organizationId: orgB.id, userId: ub.id, role: 'owner' },
  });

  const asA = (path: string, input: unknown) =>
    call(ctxFor({ userId: ua.id, orgSlug: 'org-a' }), path, input);
  const cluster = (await asA('clusters.create', { name: 'a-cluster' })) as { id: string };
  const token = await createToken(deps, orgA.id, { name: 'a-token', scopes: ['read'] });
  const run = (await asA('runs.create', {
    cluster: cluster.id,
    workload: 'a-bench',
    tool: 'pgbench',
    git: { branch: 'main' },
  })) as { id: string };
  await asA('runs.addOutput', { id: run.id, output: fixture('pgbench_tpcb.txt') });
  await asA('runs.finish', { id: run.id, status: 'succeeded' });
  const run2 = (await asA('runs.create', {
    cluster: cluster.id,
    workload: 'a-bench',
    git: { branch: 'main' },
  })) as {
    id: string;
  };
  await asA('runs.addOutput', { id: run2.id, output: fixture('pgbench_tpcb.txt') });
  await asA('runs.finish', { id: run2.id, status: 'succeeded' });
  const openRun = (await asA('runs.create', { cluster: cluster.id, workload: 'a-bench' })) as { id: string };
  const workload = await db.workload.findFirstOrThrow({
    where: { organizationId: orgA.id, name: 'a-bench' },
  });
  const threshold = (await asA('thresholds.save', { workloadId: workload.id, metric: 'tps' })) as {
    id: string;
  };
  const alert = await db.regressionAlert.create({
    data: { organizationId: orgA.id, runId: run.id, metric: 'tps', value: 1, message: 'seeded' },
  });
  const agent = (await upsertLegacyAgentHeartbeat(db, orgA.id, {
    name: 'a-agent',
    clusterId: cluster.id,
    version: '1',
    capabilities: ['pgbench', 'hey'],
    outboxBytes: 0,
    outboxEvictions: 0,
    uptimeS: 1,
    seenAt: new Date(),
  }))!;
  const hey = (await asA('workloads.create', {
    name: 'a-hey',
    tool: 'hey',
    params: { concurrency: 1 },
    target: 'http://127.0.0.1:9/',
  })) as { id: string };
  const queued = (await asA('workloads.start', { id: hey.id, cluster: cluster.id, force: true })) as {
    id: string;
  };
  await asA('schedules.create', { workloadId: workload.id, cron: '0 3 * * *', clusters: [cluster.id] });

  const alertRule = (await asA('alerting.createRule', {
    name: 'a-rule',
    clusterId: cluster.id,
    series: 'node.down',
    comparison: 'gt',
    threshold: 0,
    severity: 'critical',
  })) as { id: string };
  const channel = (await asA('alerting.createChannel', {
    name: 'a-hook',
    kind: 'webhook',
    config: { url: 'https://8.8.8.8/hook' },
    secret: { hmacSecret: 'a-secret' },
  })) as { id: string };
  await asA('alerting.setRouting', { routes: [{ severity: 'critical', channelIds: [channel.id] }] });
  const silence = (await asA('alerting.createSilence', {
    clusterId: cluster.id,
    endsAt: new Date(Date.now() + 3_600_000),
    comment: 'c',
  })) as { id: string };
  await asA('alerting.subscribePush', {
    endpoint: 'https://push.example.com/a',
    keys: { p256dh: 'A'.repeat(40), auth: 'a'.repeat(16) },
  });
  const instance = await db.alertInstance.create({
    data: {
      organizationId: orgA.id,
      ruleId: alertRule.id,
      clusterId: cluster.id,
      key: 'node=2',
      labels: { node: '2' },
      state: 'firing',
      severity: 'critical',
      activeAt: new Date(),
      firedAt: new Date(),
    },
  });

  a = {
    org: orgA.id,
    cluster: cluster.id,
    token: token.id,
    member: memberA.id,
    workload: workload.id,
    run: run.id,
    run2: run2.id,
    openRun: openRun.id,
    queuedRun: queued.id,
    threshold: threshold.id,
    alert: alert.id,
    agent: agent.name,
    email: ua.email,
    alertRule: alertRule.id,
    channel: channel.id,
    silence: silence.id,
    instance: instance.id,
  };

  const tokenB = await createToken(deps, orgB.id, {
    name: 'b-all',
    scopes: ['admin', 'ingest', 'runs:write', 'read'],
  });
  callers.push(
    { name: 'org B owner session', ctx: ctxFor({ userId: ub.id, orgSlug: 'org-b' }) },
    { name: 'org B admin token', ctx: ctxFor({ bearer: tokenB.token }) },
  );
  outsider = ctxFor({ userId: ub.id, orgSlug: 'org-a' });

  const sibling = (await asA('clusters.create', { name: 'a-sibling' })) as { id: string };
  const bound = await createToken(deps, orgA.id, {
    name: 'a-sibling-all',
    scopes: ['admin', 'ingest', 'runs:write', 'read'],
    clusterId: sibling.id,
  });
  boundCaller = ctxFor({ bearer: bound.token });
}, 120_000);

afterAll(() => close?.());

const callers: { name: string; ctx: TContext }[] = [];
let outsider: TContext;
let boundCaller: TContext;

function codeOf(err: unknown): string {
  return err instanceof TRPCError ? err.code : `non-tRPC error: ${String(err)}`;
}

describe('tenancy', () => {
  it('covers every procedure of the router', () => {
    expect(procedures.filter((p) => !(p in CASES))).toEqual([]);
    expect(Object.keys(CASES).filter((p) => !procedures.includes(p))).toEqual([]);
  });

  it("a user who is not a member of org A gets NOT_FOUND from every org procedure on org A's URL", async () => {
    for (const path of procedures) {
      if (path === 'orgs.mine') continue; // not org-scoped: lists the caller's own orgs
      const err = await call(outsider, path, CASES[path].input(a)).then(
        () => null,
        (e: unknown) => e,
      );
      expect([path, codeOf(err)]).toEqual([path, expect.stringMatching(/^(NOT_FOUND|BAD_REQUEST)$/)]);
      // BAD_REQUEST only for inputs rejected before the org check; never data.
    }
  });

  it("org B's session and token never read or write org A's resources", async () => {
    const before = await snapshotA();
    const leaks: string[] = [];
    for (const { name, ctx } of callers) {
      for (const path of procedures) {
        const c = CASES[path];
        let out: unknown;
        let err: unknown = null;
        try {
          out = await call(ctx, path, c.input(a));
        } catch (e) {
          err = e;
        }
        if (c.kind === 'denied') {
          if (!err) leaks.push(`${name}: ${path} succeeded on org A's resource`);
          else if (!['NOT_FOUND', 'FORBIDDEN'].includes(codeOf(err)))
            leaks.push(`${name}: ${path} failed with ${codeOf(err)} (${(err as Error).message})`);
        } else if (!err) {
          const json = JSON.stringify(out ?? null);
          for (const [k, v] of Object.entries(a))
            if (k !== 'agent' && k !== 'email' && json.includes(v))
              leaks.push(`${name}: ${path} returned A's ${k}`);
        } else if (!['NOT_FOUND', 'FORBIDDEN', 'UNAUTHORIZED'].includes(codeOf(err))) {
          leaks.push(`${name}: ${path} failed with ${codeOf(err)} (${(err as Error).message})`);
        }
      }
    }
    expect(leaks).toEqual([]);
    expect(await snapshotA()).toBe(before);
  }, 120_000);

  it("a token bound to another cluster of org A never reads or writes cluster A's runs, jobs or alerts", async () => {
    const before = await snapshotA();
    const leaks: string[] = [];
    for (const path of procedures) {
      const kind = BOUND[path] ?? CASES[path].kind;
      let out: unknown;
      let err: unknown = null;
      try {
        out = await call(boundCaller, path, CASES[path].input(a));
      } catch (e) {
        err = e;
      }
      if (kind === 'denied') {
        if (!err) leaks.push(`${path} succeeded on cluster A's resource`);
        else if (!['NOT_FOUND', 'FORBIDDEN'].includes(codeOf(err)))
          leaks.push(`${path} failed with ${codeOf(err)} (${(err as Error).message})`);
      } else if (!err) {
        const json = JSON.stringify(out ?? null);
        for (const k of CLUSTER_SCOPED)
          if (json.includes(a[k])) leaks.push(`${path} returned cluster A's ${k}`);
      } else if (!['NOT_FOUND', 'FORBIDDEN', 'UNAUTHORIZED'].includes(codeOf(err))) {
        leaks.push(`${path} failed with ${codeOf(err)} (${(err as Error).message})`);
      }
    }
    expect(leaks).toEqual([]);
    expect(await snapshotA()).toBe(before);
  }, 120_000);
});
