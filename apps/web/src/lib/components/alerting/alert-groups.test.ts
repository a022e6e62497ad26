import { describe, expect, it } from 'vitest';
import { groupAlerts } from './alert-groups';

const a = (id: string, ruleId: string, node: string, state = 'firing', clusterId = 'c1') => ({
  id,
  clusterId,
  ruleId,
  ruleName: ruleId === 'stale' ? 'Node stale' : 'Disk',
  state,
  labels: { node },
});

describe('groupAlerts', () => {
  it('folds one rule in one cluster and state into one group, in first-member order', () => {
    const gs = groupAlerts([
      a('1', 'stale', '1'),
      a('2', 'disk', '1'),
      a('3', 'stale', '2'),
      a('4', 'stale', '3'),
      a('5', 'stale', '4', 'pending'),
      a('6', 'stale', '5', 'firing', 'c2'),
    ]);
    expect(gs.map((g) => [g.title, g.items.map((i) => i.id)])).toEqual([
      ['Node stale · 3 nodes', ['1', '3', '4']],
      ['Disk · 1 node', ['2']],
      ['Node stale · 1 node', ['5']],
      ['Node stale · 1 node', ['6']],
    ]);
  });

  it('names cgroups and agents, else alerts', () => {
    const cg = { id: 'x', clusterId: 'c', ruleId: 'r', ruleName: 'Mem', state: 'firing' };
    expect(groupAlerts([{ ...cg, labels: { host: 'h', cgroup: '/db' } }])[0]!.title).toBe('Mem · 1 cgroup');
    expect(groupAlerts([{ ...cg, labels: { agent: 'a' } }])[0]!.title).toBe('Mem · 1 agent');
    expect(groupAlerts([{ ...cg, labels: {} }])[0]!.title).toBe('Mem · 1 alert');
  });
});
