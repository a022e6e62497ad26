/** Exactly one evaluator across web instances: a PostgreSQL advisory-lock leader, handed over when it dies. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDb, createLeaderLock, type TDb } from '@clusterscope/db';
import { openTempClickHouse } from '@clusterscope/tsdb';
import { createTestDatabase } from '../../../db/test/pg';
import type { TDeps } from '../deps';
import { ALERT_LEADER_KEY, startAlerting, type TAlertCycle } from './runner';

let url: string;
let db: TDb;
let deps: TDeps;
let cleanupCh: () => Promise<void>;

beforeAll(async () => {
  url = await createTestDatabase();
  db = createDb(url);
  const ch = await openTempClickHouse();
  cleanupCh = ch.cleanup;
  deps = { db, ch: ch.ch };
});
afterAll(async () => {
  await cleanupCh?.();
  await db?.$disconnect();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitUntil(ok: () => boolean, ms = 10_000) {
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
}, 60_000);
