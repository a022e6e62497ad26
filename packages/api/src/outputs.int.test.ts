/**
 * Procedures whose answers carry nested read-models are checked against their `.output()` on real stores:
 * an answer the schema does not describe would be a 500, not a silently different page.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TDb } from '@clusterscope/db';
import { type TDeps } from '@clusterscope/services/core';
import { createToken } from '@clusterscope/services/tenancy';
import { createWriter } from '@clusterscope/tsdb';
import { nodeSample } from '@clusterscope/tsdb/testing';
import { openTestDeps } from './test-deps';
import { appRouter } from './root';
import { createCallerFactory } from './trpc';

let db: TDb;
let deps: TDeps;
let close: (() => Promise<void>) | undefined;
const factory = createCallerFactory(appRouter);
let api: ReturnType<typeof factory>;
let orgId: string;

beforeAll(async () => {
  ({ db, deps, close } = await openTestDeps());
  orgId = (await db.organization.create({ data: { id: randomUUID(), name: 'O', slug: 'org-o' } })).id;
  const { token } = await createToken(deps, orgId, { name: 'ci', scopes: ['admin'] });
  api = factory({ deps, userId: null, bearer: token, orgSlug: null });
}, 120_000);

afterAll(() => close?.());

it('clusters.update and clusters.delete answer what their outputs describe', async () => {
  const c = await api.clusters.create({ name: 'prod' });
  expect(await api.clusters.update({ id: c.id, name: 'prod-east' })).toMatchObject({
    id: c.id,
    name: 'prod-east',
  });
  expect(await api.clusters.delete({ id: c.id })).toEqual({ id: c.id, deleted: true });
});

it('compare.runPage: a run during which node 2 was DEAD has an unhealthy environment, naming the node and the transition', async () => {
  const c = await api.clusters.create({ name: 'bench' });
  const t0 = Date.now() - 10 * 60_000;
  const writer = createWriter(deps.ch, { maxDelayMs: 0 });
  for (let k = 0; k < 12; k++) {
    const ts = t0 + k * 10_000;
    await writer.write(orgId, c.id, `b-${k}`, [
      nodeSample(1, ts),
      nodeSample(2, ts, k >= 4 ? { liveness: 'DEAD' } : {}),
    ]);
  }
  await writer.close();
  const run = await api.runs.create({
    cluster: c.id,
    workload: 'oltp',
    tool: 'pgbench',
    startedAt: new Date(t0 + 20_000).toISOString(),
  });
  const page = await api.compare.runPage({ id: run.id });
  expect(page.run).toMatchObject({ id: run.id, tool: 'pgbench' });
  expect(page.comparison.run_id).toBe(run.id);
  const env = page.environment;
  expect(env.healthy).toBe(false);
  expect(env.reasons.join(' ')).toMatch(/node/i);
  expect(env.env?.nodes_not_live.map((n) => n.node_id)).toEqual([2]);
  expect(env.events).toContainEqual(expect.objectContaining({ node_id: 2, to: 'DEAD' }));
});
