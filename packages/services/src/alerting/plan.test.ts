import { describe, expect, it } from 'vitest';
import type { TAlertRuleRow, TInstanceRow } from '@clusterscope/db';
import type { TAlertNode } from '@clusterscope/tsdb';
import { planEvaluation, type TPlanInput } from './plan';

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
  clusters: [{ id: 'c', organizationId: 'o', name: 'prod', intervalS: 10 }],
  readings: [['c', { nodes, cgroups: [], agents: [], intervalS: 10 }]],
  live,
  metrics: [],
});

describe('planEvaluation', () => {
  it('fires, resolves and keeps firing by rule and node', () => {
    const out = planEvaluation(input([firing('down', 'node=1')], [node(1, 'LIVE'), node(2, 'DEAD')]));
    const states = out.changes.map((c) => `${c.instance.ruleId}/${c.instance.key}:${c.instance.state}`);
    expect(states.sort()).toEqual([
      'cap/node=1:firing',
      'cap/node=2:firing',
      'down/node=1:resolved',
      'down/node=2:firing',
    ]);
    expect(out.changes[0]!.event.at).toBeInstanceOf(Date);
  });
});

describe('subjects that disappear', () => {
  it('resolve when the cluster still reports fresh data (a decommissioned node), never when it is silent', () => {
    const stored = [firing('down', 'node=2')];
    // Node 2 is gone (decommissioned: filtered out) while node 1 reports fresh samples → resolved.
    const gone = planEvaluation(input(stored, [node(1, 'LIVE'), node(2, 'DECOMMISSIONED')]));
    const down = gone.changes.filter((c) => c.instance.ruleId === 'down');
    expect(down.map((c) => [c.instance.key, c.instance.state, c.event.message])).toEqual([
      ['node=2', 'resolved', 'subject no longer reported'],
    ]);
    // The whole cluster is silent (only stale samples, or none): unknown, nothing resolves.
    const stale = { ...node(1, 'LIVE'), ts: NOW.getTime() - 120_000 };
    const silent = planEvaluation(input(stored, [stale]));
    expect(silent.changes.filter((c) => c.instance.ruleId === 'down')).toEqual([]);
    expect(planEvaluation(input(stored, [])).changes).toEqual([]);
  });
});

describe('after a server restart', () => {
  const stale = rule('stale', { series: 'node.stale', threshold: 0, summary: 'node {{node}} stale' });
  const old = (id: number): TAlertNode => ({ ...node(id, 'LIVE'), ts: NOW.getTime() - 300_000 });
  const at = (upForS: number | undefined) =>
    planEvaluation({
      ...input([], [old(1), old(2), node(3, 'LIVE')]),
      rules: [stale],
      upSince: upForS === undefined ? undefined : new Date(NOW.getTime() - upForS * 1000),
    }).changes.map((c) => `${c.instance.key}:${c.instance.state}`);

  it('judges staleness from the server uptime too: nothing fires within the stale window', () => {
    // Stale window = 3 × 10 s. Samples are 5 min old because the server was down, not the agents.
    expect(at(5)).toEqual([]);
    expect(at(29)).toEqual([]);
    expect(at(30).sort()).toEqual(['node=1:firing', 'node=2:firing']);
    expect(at(undefined).sort()).toEqual(['node=1:firing', 'node=2:firing']);
  });

  it('other rules do not read silent nodes as healthy meanwhile (their samples are not stale yet)', () => {
    const out = planEvaluation({
      ...input([], [{ ...old(1), liveness: 'DEAD' }]),
      upSince: new Date(NOW.getTime() - 5000),
    });
    expect(out.changes.map((c) => `${c.instance.ruleId}/${c.instance.key}:${c.instance.state}`)).toContain(
      'down/node=1:firing',
    );
  });
});
