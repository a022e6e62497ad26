import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { bootWorkerFromSource } from '../testing';
import type { TAlertRuleRow, TInstanceRow } from '@clusterscope/db';
import type { TAlertNode } from '@clusterscope/tsdb';
import { createEvalPlanner, inlinePlanner } from './eval-pool';
import type { TPlanInput } from './plan';

// The worker runs from source through tsx (production runs the bundled worker file).
const { entry, dir } = bootWorkerFromSource('alerting/eval-worker.ts');
const planner = createEvalPlanner({ entry });
afterAll(async () => {
  await planner.close();
  rmSync(dir, { recursive: true, force: true });
});

const NOW = new Date(Date.UTC(2026, 10, 20, 12));
const rule = (id: string, over: Partial<TAlertRuleRow> = {}): TAlertRuleRow => ({
  id, organizationId: 'o', clusterId: 'c', builtin: null, name: id, series: 'node.down', metric: null,
  aggregation: 'node', comparison: 'gt', threshold: 0, forS: 0, keepFiringForS: 0, severity: 'critical',
  labels: {}, summary: 'node {{node}} {{liveness}}', runbookUrl: '', enabled: true, createdAt: NOW, updatedAt: NOW,
  ...over,
}); // prettier-ignore
const node = (id: number, liveness: TAlertNode['liveness']): TAlertNode => ({
  org_id: 'o', cluster_id: 'c', node_id: id, ts: NOW.getTime() - 5000, liveness, ranges: 10, ranges_unavailable: 0,
  ranges_underreplicated: 0, replicas: 10, replicas_leaseholders: 3, live_bytes: 1, capacity: 100,
  capacity_available: 10, capacity_used: 90, uptime_s: 1,
}); // prettier-ignore
const firing = (ruleId: string, key: string): TInstanceRow =>
  ({
    id: `i-${key}`, organizationId: 'o', ruleId, clusterId: 'c', key, labels: {}, state: 'firing',
    severity: 'critical', summary: '', value: 1, activeAt: NOW, firedAt: NOW, resolvedAt: null, lastTrueAt: NOW,
    escalatedAt: null, ackedBy: null, ackedAt: null, createdAt: NOW, updatedAt: NOW,
  }) as unknown as TInstanceRow; // prettier-ignore

const input = (live: TInstanceRow[], nodes: TAlertNode[]): TPlanInput => ({
  now: NOW,
  rules: [rule('down'), rule('cap', { series: 'node.capacity_pct', threshold: 80 })],
  rulesVersion: 'v1',
  clusters: [{ id: 'c', organizationId: 'o', name: 'prod', intervalS: 10 }],
  readings: [['c', { nodes, cgroups: [], agents: [], intervalS: 10 }]],
  live,
  metrics: [],
});

describe('alert eval planner on a worker thread', () => {
  it('answers exactly what the inline planner answers (Dates cross intact)', async () => {
    const a = input([firing('down', 'node=1')], [node(1, 'LIVE'), node(2, 'DEAD')]);
    const [w, i] = await Promise.all([planner.plan(a), inlinePlanner().plan(a)]);
    expect(planner.threaded).toBe(true);
    expect({ ...w, ms: 0 }).toEqual({ ...i, ms: 0 });
    const states = w.changes.map((c) => `${c.instance.ruleId}/${c.instance.key}:${c.instance.state}`);
    expect(states.sort()).toEqual([
      'cap/node=1:firing',
      'cap/node=2:firing',
      'down/node=1:resolved',
      'down/node=2:firing',
    ]);
    expect(w.changes[0]!.event.at).toBeInstanceOf(Date);
  });
  it('keeps the rules between jobs of the same version (sent once) and takes new ones', async () => {
    const again = await planner.plan({ ...input([], [node(3, 'DEAD')]), rules: [] });
    // rules: [] with the same version is not sent; the worker still has both rules.
    expect(again.changes.map((c) => c.instance.ruleId).sort()).toEqual(['cap', 'down']);
    const v2 = await planner.plan({ ...input([], [node(3, 'DEAD')]), rules: [], rulesVersion: 'v2' });
    expect(v2.changes).toEqual([]);
  });
});

describe('subjects that disappear', () => {
  const inline = inlinePlanner();
  it('resolve when the cluster still reports fresh data (a decommissioned node), never when it is silent', async () => {
    const stored = [firing('down', 'node=2')];
    // Node 2 is gone (decommissioned: filtered out) while node 1 reports fresh samples → resolved.
    const gone = await inline.plan(input(stored, [node(1, 'LIVE'), node(2, 'DECOMMISSIONED')]));
    const down = gone.changes.filter((c) => c.instance.ruleId === 'down');
    expect(down.map((c) => [c.instance.key, c.instance.state, c.event.message])).toEqual([
      ['node=2', 'resolved', 'subject no longer reported'],
    ]);
    // The whole cluster is silent (only stale samples, or none): unknown, nothing resolves.
    const stale = { ...node(1, 'LIVE'), ts: NOW.getTime() - 120_000 };
    const silent = await inline.plan(input(stored, [stale]));
    expect(silent.changes.filter((c) => c.instance.ruleId === 'down')).toEqual([]);
    expect((await inline.plan(input(stored, []))).changes).toEqual([]);
  });
});
