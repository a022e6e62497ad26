/**
 * Exactly one evaluator across web instances: a PostgreSQL advisory-lock leader, handed over when it dies;
 * and the ingest fast path: a node_status notice on the LISTEN/NOTIFY bus makes the leader evaluate at once.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getPriority } from 'node:os';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDb, createLeaderLock, createLiveBus, type TDb } from '@clusterscope/db';
import { createWriter, type TWriter } from '@clusterscope/tsdb';
import { nodeSample, openTempClickHouse } from '@clusterscope/tsdb/testing';
import { createOutbound } from '../core/outbound';
import { createTestDatabase } from '@clusterscope/db/testing';
import type { TDeps } from '../core/deps';
import { secretKeysOf } from '../core/secrets';
import { bootWorkerFromSource, NODE_DOWN_NOW } from '../testing';
import { ALERT_LEADER_KEY, NUDGE_WINDOW_MS, startAlerting, type TAlertCycle } from './runner';
import type { TCaller } from '../tenancy/caller';
import { createChannel, setRouting } from './api';
import { signBody } from './channels';
import { ALERT_THREAD_NICE, startAlertingThread } from './thread';

let url: string;
let db: TDb;
let deps: TDeps;
let writer: TWriter;
let cleanupCh: () => Promise<void>;

beforeAll(async () => {
  url = await createTestDatabase();
  db = createDb(url);
  const ch = await openTempClickHouse();
  cleanupCh = ch.cleanup;
  // Receivers are on loopback: allowed here as an operator would with OUTBOUND_ALLOW.
  deps = { db, ch: ch.ch, outbound: createOutbound({ allow: '127.0.0.1/32' }) };
  writer = createWriter(ch.ch, { maxDelayMs: 0 });
});
afterAll(async () => {
  await writer?.close();
  await cleanupCh?.();
  await db?.$disconnect();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Generous: a loaded 2-core CI machine once needed more than 10 s here; a passing run returns at once.
async function waitUntil(ok: () => boolean, ms = 30_000) {
  for (const end = Date.now() + ms; !ok() && Date.now() < end; ) await sleep(50);
}

it('one of two instances evaluates; when the leader’s connection dies the other takes over within an interval', async () => {
  const lockA = createLeaderLock(url, ALERT_LEADER_KEY);
  const lockB = createLeaderLock(url, ALERT_LEADER_KEY);
  const cycles: Record<'a' | 'b', TAlertCycle[]> = { a: [], b: [] };
  const stopA = startAlerting(deps, { lock: lockA, intervalMs: 200, onCycle: (c) => cycles.a.push(c) });
  await sleep(300); // A starts first and wins
  const stopB = startAlerting(deps, { lock: lockB, intervalMs: 200, onCycle: (c) => cycles.b.push(c) });
  await waitUntil(() => cycles.a.filter((c) => c.stats).length >= 3 && cycles.b.length >= 3);
  expect(lockA.isLeader()).toBe(true);
  expect(lockB.isLeader()).toBe(false);
  const evalA = cycles.a.filter((c) => c.stats).length;
  expect(evalA).toBeGreaterThan(2);
  expect(cycles.b.every((c) => !c.leader && !c.stats)).toBe(true);
  expect(cycles.a.every((c) => !c.error)).toBe(true);

  // The leader's session dies (crash, network partition, DBA kill): PostgreSQL releases its lock.
  const pid = lockA.backendPid();
  expect(pid).not.toBeNull();
  await db.$queryRawUnsafe('SELECT pg_terminate_backend($1)', pid);
  await waitUntil(() => cycles.b.some((c) => c.leader && c.stats));
  expect(lockB.isLeader()).toBe(true);
  expect(cycles.b.some((c) => c.leader && c.stats)).toBe(true);
  // A reconnects but stays a follower while B holds the lock: never two evaluators.
  const held = await db.$queryRawUnsafe<{ n: bigint }[]>(
    "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted",
    ALERT_LEADER_KEY,
  );
  expect(Number(held[0]!.n)).toBe(1);
  expect(lockA.isLeader()).toBe(false);
  const n = cycles.a.length;
  await waitUntil(() => cycles.a.length >= n + 3);
  const aAfter = cycles.a.slice(n);
  expect(aAfter.every((c) => !c.leader)).toBe(true);
  await stopB();
  await stopA();
}, 150_000);

it('a node_status notice from another instance makes the leader evaluate that cluster at once (timer 60 s), at most once a second', async () => {
  const org = await db.organization.create({ data: { id: randomUUID(), name: 'Nudge', slug: 'nudge' } });
  const cluster = await db.cluster.create({
    data: { organizationId: org.id, name: 'prod-west', intervalS: 10 },
  });
  await db.alertRule.create({ data: { organizationId: org.id, clusterId: cluster.id, ...NODE_DOWN_NOW } });
  const leaderBus = createLiveBus(url); // the leader instance's live bus
  const otherBus = createLiveBus(url); // the instance that took the ingest
  const cycles: TAlertCycle[] = [];
  const stop = startAlerting(deps, {
    lock: createLeaderLock(url, ALERT_LEADER_KEY),
    intervalMs: 60_000,
    bus: leaderBus,
    onCycle: (c) => cycles.push(c),
  });
  try {
    await waitUntil(() => cycles.some((c) => c.leader && c.stats));
    expect(cycles).toHaveLength(1); // the start-up cycle; the timer's next one is a minute away
    await sleep(300); // the leader's LISTEN is up

    // What the ingest endpoint does: store the batch, then publish a 'samples' notice.
    await writer.write(org.id, cluster.id, 'b-1', [
      nodeSample(1, Date.now()),
      nodeSample(2, Date.now(), { liveness: 'DEAD' }),
    ]);
    const started = Date.now();
    await otherBus.publish({
      orgId: org.id,
      topic: 'samples',
      clusterId: cluster.id,
      kinds: ['node_status'],
    });
    let firing: { labels: unknown }[] = [];
    for (const end = started + 2000; firing.length === 0 && Date.now() < end; await sleep(50))
      firing = await db.alertInstance.findMany({ where: { clusterId: cluster.id, state: 'firing' } });
    expect(firing.map((i) => (i.labels as Record<string, string>).node)).toEqual(['2']);
    expect(Date.now() - started).toBeLessThan(2000);
    await waitUntil(() => cycles.length > 1); // its notify step ends the cycle
    expect(cycles[1]?.nudged).toEqual([cluster.id]);

    // A burst of notices (and ones other nudges must ignore) costs at most one cycle per cluster per window.
    const before = cycles.length;
    const burstAt = Date.now();
    for (let i = 0; i < 20; i++) {
      await otherBus.publish({
        orgId: org.id,
        topic: 'samples',
        clusterId: cluster.id,
        kinds: ['node_status'],
      });
      await otherBus.publish({ orgId: org.id, topic: 'samples', clusterId: cluster.id, kinds: ['cgroup'] });
      await otherBus.publish({ orgId: org.id, topic: 'run', clusterId: cluster.id });
    }
    await sleep(NUDGE_WINDOW_MS * 2.5 - (Date.now() - burstAt));
    const extra = cycles.slice(before);
    expect(extra.length).toBeGreaterThanOrEqual(1);
    expect(extra.length).toBeLessThanOrEqual(3);
    expect(extra.every((c) => c.nudged && c.stats && !c.error)).toBe(true);
  } finally {
    await stop();
    await leaderBus.close();
    await otherBus.close();
  }
}, 150_000);

/** Name and nice value of each thread of this process (Linux). */
const threadNices = () =>
  readdirSync('/proc/self/task').map((t) => {
    const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
    const name = readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim();
    return { tid: Number(t), name, nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) };
  });

it('the web process runs the loop on its own thread: own pool, lower priority, chDB read through the web thread, channel secrets opened with the web’s keys; stop releases the lock', async () => {
  const org = await db.organization.create({ data: { id: randomUUID(), name: 'Thread', slug: 'thread' } });
  const hits: { body: string; sig: unknown }[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => (hits.push({ body, sig: req.headers['x-clusterscope-signature'] }), res.end('ok')));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const caller: TCaller = {
    kind: 'token', tokenId: 't', orgId: org.id, orgSlug: 'thread', scopes: ['admin'], clusterId: null,
  }; // prettier-ignore
  const hook = await createChannel(deps, caller, {
    name: 'hook',
    kind: 'webhook',
    config: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` },
    secret: { hmacSecret: 'thread-secret' },
  });
  await setRouting(deps, caller, {
    routes: [{ severity: 'critical', channelIds: [hook.id] }],
    grouping: { groupWaitS: 0, groupIntervalS: 2, repeatIntervalS: 3600 },
  });
  const cluster = await db.cluster.create({ data: { organizationId: org.id, name: 'east', intervalS: 10 } });
  await db.alertRule.create({ data: { organizationId: org.id, clusterId: cluster.id, ...NODE_DOWN_NOW } });
  await writer.write(org.id, cluster.id, 't-1', [
    nodeSample(1, Date.now()),
    nodeSample(3, Date.now(), { liveness: 'DEAD' }),
  ]);
  const boot = bootWorkerFromSource('alerting/thread-worker.ts');
  const cycles: TAlertCycle[] = [];
  const stop = startAlertingThread(deps, {
    entry: boot.entry,
    config: {
      databaseUrl: url,
      intervalMs: 200,
      secrets: secretKeysOf(deps),
      nice: ALERT_THREAD_NICE,
      outboundAllow: '127.0.0.1/32',
    },
    onCycle: (c) => cycles.push(c),
  });
  try {
    let firing: { labels: unknown }[] = [];
    for (const end = Date.now() + 30_000; firing.length === 0 && Date.now() < end; await sleep(100))
      firing = await db.alertInstance.findMany({ where: { clusterId: cluster.id, state: 'firing' } });
    expect(firing.map((i) => (i.labels as Record<string, string>).node)).toEqual(['3']);
    // Sent by the thread, signed with the secret the web thread sealed.
    await waitUntil(() => hits.length > 0);
    expect(hits[0]?.sig).toBe(signBody('thread-secret', hits[0]!.body));
    await waitUntil(() => cycles.filter((c) => c.leader && c.stats).length >= 8);
    // Cycles 200 ms apart without transitions skip the notification pass (NOTIFY_GAP_MS); some still run it.
    const quiet = cycles.filter((c) => c.leader && c.stats?.transitions === 0);
    expect(quiet.some((c) => c.queued === undefined)).toBe(true);
    expect(quiet.some((c) => c.queued !== undefined)).toBe(true);
    expect(cycles.every((c) => c.ms === undefined || c.ms > 0)).toBe(true);
    expect(cycles.filter((c) => c.error)).toEqual([]);
    expect(cycles.some((c) => c.leader && c.stats!.clusters >= 1)).toBe(true);
    // One thread, named, at nice 10; this (the web) thread keeps its priority.
    expect(threadNices().filter((t) => t.name === 'cs-alerting')).toMatchObject([
      { nice: ALERT_THREAD_NICE },
    ]);
    expect(threadNices().find((t) => t.tid === process.pid)?.nice).toBe(0);
    // Its PostgreSQL backends (on this machine) at nice 10 too; the web's keep theirs.
    const backends = await db.$queryRaw<{ pid: number; mine: boolean }[]>`
      SELECT pid, pid = pg_backend_pid() AS mine FROM pg_stat_activity
      WHERE datname = current_database() AND backend_type = 'client backend'`;
    const nices = backends.map((b) => ({ mine: b.mine, nice: getPriority(b.pid) }));
    expect(nices.filter((b) => b.nice === ALERT_THREAD_NICE).length).toBeGreaterThan(0);
    expect(nices.find((b) => b.mine)?.nice).toBe(0);
  } finally {
    await stop();
    rmSync(boot.dir, { recursive: true, force: true });
    await new Promise((r) => receiver.close(r));
  }
  // Stopped: the lock is free for another instance at once.
  const next = createLeaderLock(url, ALERT_LEADER_KEY);
  expect(await next.tryAcquire()).toBe(true);
  await next.close();
}, 180_000);
