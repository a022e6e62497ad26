/** Outbox evictions page once across a leader change: the last counter per agent lives in PostgreSQL. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDb, type TDb } from '@clusterscope/db';
import { openTempClickHouse } from '@clusterscope/tsdb/testing';
import { createTestDatabase } from '@clusterscope/db/testing';
import type { TDeps } from '../core/deps';
import { createEvaluatorMemo, evaluateAlerts } from './evaluator';

let db: TDb;
let deps: TDeps;
let cleanupCh: () => Promise<void>;

beforeAll(async () => {
  db = createDb(await createTestDatabase());
  const ch = await openTempClickHouse();
  cleanupCh = ch.cleanup;
  deps = { db, ch: ch.ch };
}, 120_000);
afterAll(async () => {
  await cleanupCh?.();
  await db?.$disconnect();
});

it('an eviction seen by no leader yet pages after a leader change; one already seen does not page again', async () => {
  const org = await db.organization.create({ data: { id: randomUUID(), name: 'E', slug: 'ev' } });
  const cluster = await db.cluster.create({ data: { organizationId: org.id, name: 'c', intervalS: 10 } });
  const agent = await db.agent.create({
    data: { organizationId: org.id, clusterId: cluster.id, name: 'a1', capabilities: [], disabledTools: [] },
  });
  const evicting = () =>
    db.alertInstance.findMany({
      where: { clusterId: cluster.id, key: 'agent=a1', rule: { builtin: 'outbox_evicting' } },
    });
  const t = Date.UTC(2026, 10, 20, 12);

  await evaluateAlerts(deps, { now: new Date(t), memo: createEvaluatorMemo() }); // leader A: baseline 0
  await db.agent.update({ where: { id: agent.id }, data: { outboxEvictions: 5 } });
  // Leader A dies; leader B starts with an empty memo and still sees the 5 new evictions.
  const memoB = createEvaluatorMemo();
  await evaluateAlerts(deps, { now: new Date(t + 15_000), memo: memoB });
  expect((await evicting()).map((i) => [i.state, i.value])).toEqual([['firing', 5]]);
  // Leader C: nothing new since B → value 0 (still firing under keep_firing_for 10 min, not re-raised).
  await evaluateAlerts(deps, { now: new Date(t + 30_000), memo: createEvaluatorMemo() });
  const after = await evicting();
  expect(after.map((i) => i.state)).toEqual(['firing']);
  expect(after[0]!.firedAt!.getTime()).toBe(t + 15_000);
  expect(await db.alertAgentEvictions.findUnique({ where: { agentId: agent.id } })).toMatchObject({
    evictions: 5,
  });
});
