/**
 * Rule preview on the real embedded PostgreSQL and chDB: the current value per node and where the rule would
 * fire, as the evaluator then fires it; a rule saved without a summary says its condition.
 */
import { randomUUID } from 'node:crypto';
import { createWriter, type TWriter } from '@clusterscope/tsdb';
import { nodeSample } from '@clusterscope/tsdb/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCluster, createOwnedOrg } from '@clusterscope/db/testing';
import type { TCaller } from '../tenancy/caller';
import { errorCode, useTestEnv } from '../core/test-env';
import { listAlertInstances } from './api';
import { getAlertSeries } from './alert-series';
import { createEvaluatorMemo, evaluateAlerts } from './evaluator';
import { previewAlertRule } from './preview';
import { createAlertRule, updateAlertRule } from './rules';

const env = useTestEnv();
let writer: TWriter;
let caller: TCaller;
let orgId: string;
let clusterId: string;
let otherId: string;
const now = Date.now();
/** Replicas of nodes 1..5. */
const REPLICAS = [40, 55, 60, 45, 70];

beforeAll(async () => {
  writer = createWriter(env.ch, { maxDelayMs: 0 });
  const owner = await createOwnedOrg(env.db);
  orgId = owner.orgId;
  caller = { kind: 'user', ...owner };
  clusterId = await createCluster(env.db, orgId, 'prod', 10);
  otherId = await createCluster(env.db, orgId, 'staging', 10);
  await writer.write(
    orgId,
    clusterId,
    `b-${randomUUID()}`,
    REPLICAS.map((r, i) => nodeSample(i + 1, now - 2000, { replicas: r })),
  );
  await writer.write(orgId, otherId, `b-${randomUUID()}`, [nodeSample(1, now - 2000, { replicas: 500 })]);
  await writer.flush();
}, 120_000);

afterAll(async () => {
  await writer?.close();
});

describe('rule preview', () => {
  it("shows each node's current value and where the rule would fire", async () => {
    const p = await previewAlertRule(
      env.deps,
      caller,
      { clusterId, series: 'node.replicas', comparison: 'gt', threshold: 50 },
      now,
    );
    expect(p).toMatchObject({ unit: '', total: 5, firing: 3 });
    // Firing first, then in node order.
    expect(p.subjects.map((s) => [s.labels.node, s.value, s.fires])).toEqual([
      ['2', 55, true],
      ['3', 60, true],
      ['5', 70, true],
      ['1', 40, false],
      ['4', 45, false],
    ]);
    expect(p.subjects.every((s) => s.clusterName === 'prod' && !s.stale)).toBe(true);
  });

  it('the issue\'s rule "node.down > -5" fires on every node; aggregated rules give one cluster value', async () => {
    const down = await previewAlertRule(
      env.deps,
      caller,
      { clusterId, series: 'node.down', comparison: 'gt', threshold: -5 },
      now,
    );
    expect([down.firing, down.total]).toEqual([5, 5]);
    const sum = await previewAlertRule(
      env.deps,
      caller,
      { clusterId, series: 'node.replicas', aggregation: 'sum', comparison: 'gte', threshold: 270 },
      now,
    );
    expect(sum.subjects.map((s) => [s.value, s.fires])).toEqual([[270, true]]);
    // Every cluster of the org when the rule has none.
    const all = await previewAlertRule(
      env.deps,
      caller,
      { series: 'node.replicas', comparison: 'gt', threshold: 100 },
      now,
    );
    expect(all.subjects.filter((s) => s.fires).map((s) => s.clusterName)).toEqual(['staging']);
    expect(all.total).toBe(6);
  });

  it('agrees with the evaluator once the rule is saved', async () => {
    const rule = await createAlertRule(env.deps, caller, {
      clusterId,
      name: 'x',
      series: 'node.replicas',
      comparison: 'gt',
      threshold: 50,
      severity: 'warning',
    });
    await evaluateAlerts(env.deps, { now: new Date(now), memo: createEvaluatorMemo() });
    const firing = (await listAlertInstances(env.deps, caller, { clusterId, state: 'firing' })).filter(
      (a) => a.ruleId === rule.id,
    );
    expect(firing.map((a) => a.labels.node).sort()).toEqual(['2', '3', '5']);
    // Saved without a summary: the alert says its condition, not just "x".
    expect(rule.summary).toBe('node.replicas > 50 on node {{node}} of {{cluster}} (now {{value}})');
    expect(firing.find((a) => a.labels.node === '5')?.summary).toBe(
      'node.replicas > 50 on node 5 of prod (now 70)',
    );
    // The alert page's chart: the node's replicas around the alert, the threshold, the active window.
    const five = firing.find((a) => a.labels.node === '5')!;
    const chart = await getAlertSeries(env.deps, caller, five.id, now + 1000);
    expect(chart).toMatchObject({ source: 'history', threshold: 50, unit: '' });
    expect(chart.data).toEqual([[now - 2000, 70]]);
    expect(chart.windows).toEqual([{ from: now, to: null, firedAt: now }]);
    expect(chart.from).toBe(now - 30 * 60_000);
    const edited = await updateAlertRule(env.deps, caller, { id: rule.id, threshold: 60, summary: ' ' });
    expect(edited.summary).toBe('node.replicas > 60 on node {{node}} of {{cluster}} (now {{value}})');
  });

  it('names a bad field, and a token bound to another cluster sees nothing of this one', async () => {
    expect(
      await errorCode(
        previewAlertRule(env.deps, caller, {
          clusterId,
          series: 'node.nope',
          comparison: 'gt',
          threshold: 1,
        }),
      ),
    ).toBe('BAD_REQUEST');
    const bound: TCaller = {
      kind: 'token',
      tokenId: 't',
      orgId,
      orgSlug: 'acme',
      scopes: ['read'],
      clusterId: otherId,
    };
    expect(
      await errorCode(
        previewAlertRule(env.deps, bound, {
          clusterId,
          series: 'node.replicas',
          comparison: 'gt',
          threshold: 1,
        }),
      ),
    ).toBe('NOT_FOUND');
    const own = await previewAlertRule(
      env.deps,
      bound,
      { series: 'node.replicas', comparison: 'gt', threshold: 1 },
      now,
    );
    expect(own.subjects.map((s) => s.clusterName)).toEqual(['staging']);
  });
});
