import { describe, expect, it } from 'vitest';
import { DEFAULT_GROUPING } from '@clusterscope/schema';
import { planGroup, notificationTitle } from './notify';
import { aggregate, samplesOf } from './series';
import { INACTIVE, step, type TInstanceState } from './state';

const at = (s: number) => new Date(1_800_000_000_000 + s * 1000);

function run(conds: (boolean | null)[], rule = { forS: 60, keepFiringForS: 0 }, every = 15) {
  let s: TInstanceState = INACTIVE;
  return conds.map((c, i) => (s = step(s, c, at(i * every), rule)).state);
}

describe('state machine', () => {
  it('waits `for` in pending, then fires; a shorter flap goes back to inactive', () => {
    expect(run([true, true, true, true, true])).toEqual([
      'pending',
      'pending',
      'pending',
      'pending',
      'firing',
    ]);
    expect(run([true, true, false, true])).toEqual(['pending', 'pending', 'inactive', 'pending']);
    expect(run([true], { forS: 0, keepFiringForS: 0 })).toEqual(['firing']);
  });
  it('keep_firing_for holds a firing alert through short recoveries', () => {
    const r = { forS: 0, keepFiringForS: 30 };
    expect(run([true, false, false, false], r)).toEqual(['firing', 'firing', 'resolved', 'resolved']);
    expect(run([true, false, true, false, false], r)).toEqual([
      'firing',
      'firing',
      'firing',
      'firing',
      'resolved',
    ]);
  });
  it('unknown (stale) never resolves nor clears', () => {
    expect(run([true, true, true, true, true, null, null, null])).toEqual([
      'pending', 'pending', 'pending', 'pending', 'firing', 'firing', 'firing', 'firing',
    ]); // prettier-ignore
    expect(run([true, null, null, null, null, true])).toEqual([
      'pending', 'pending', 'pending', 'pending', 'pending', 'firing',
    ]); // prettier-ignore
  });
});

describe('series', () => {
  const node = (id: number, ts: number, liveness = 'LIVE') =>
    ({ org_id: 'o', cluster_id: 'c', node_id: id, ts, liveness, ranges: 1, ranges_unavailable: id, ranges_underreplicated: 0,
       replicas: 1, replicas_leaseholders: 1, live_bytes: 1, capacity: 100, capacity_available: 15, capacity_used: 85,
       uptime_s: 1 }) as never; // prettier-ignore
  const r = (nodes: never[]) => ({ nodes, cgroups: [], agents: [], intervalS: 10 });
  it('marks nodes silent for 3 intervals stale; the staleness series itself is not', () => {
    const now = 100_000;
    const s = samplesOf('node.down', r([node(1, now - 5000), node(2, now - 31_000, 'DEAD')]), now);
    expect(s.map((x) => [x.key, x.value, x.stale])).toEqual([
      ['node=1', 0, false],
      ['node=2', 1, true],
    ]);
    expect(samplesOf('node.stale', r([node(2, now - 31_000)]), now)[0]).toMatchObject({
      value: 1,
      stale: false,
    });
    expect(samplesOf('node.capacity_pct', r([node(1, now)]), now)[0]!.value).toBeCloseTo(85);
  });
  it('aggregates over fresh subjects', () => {
    const now = 100_000;
    const s = samplesOf(
      'node.ranges_unavailable',
      r([node(1, now), node(2, now), node(5, now - 60_000)]),
      now,
    );
    expect(aggregate(s, 'sum')).toMatchObject({ value: 3, stale: false });
    expect(aggregate(s, 'max')).toMatchObject({ value: 2 });
  });
});

describe('grouping', () => {
  const g0 = { notifiedIds: [], firstSeenAt: null, lastSentAt: null };
  const G = DEFAULT_GROUPING;
  it('waits group_wait, sends once, batches changes by group_interval, repeats unacked by repeat_interval', () => {
    const a = [{ id: 'a', acked: false }];
    const active = new Set(['a']);
    let p = planGroup(g0, a, active, G, at(0));
    expect(p.send).toBeNull();
    p = planGroup(p.next, a, active, G, at(30));
    expect(p.send).toBe('firing');
    const ab = [...a, { id: 'b', acked: false }];
    expect(planGroup(p.next, ab, new Set(['a', 'b']), G, at(100)).send).toBeNull();
    expect(planGroup(p.next, ab, new Set(['a', 'b']), G, at(330)).send).toBe('firing');
    expect(planGroup(p.next, a, active, G, at(30 + 14_399)).send).toBeNull();
    expect(planGroup(p.next, a, active, G, at(30 + 14_400)).send).toBe('firing');
    expect(planGroup(p.next, [{ id: 'a', acked: true }], active, G, at(30 + 14_400)).send).toBeNull();
    const cleared = planGroup(p.next, [], new Set(), G, at(400));
    expect(cleared).toMatchObject({ send: 'resolved', resolvedIds: ['a'], next: g0 });
  });
  it('a silenced alert (still active, not notifiable) is not resolved', () => {
    const p = planGroup(
      { notifiedIds: ['a'], firstSeenAt: at(0), lastSentAt: at(0) },
      [],
      new Set(['a']),
      G,
      at(999),
    );
    expect(p.send).toBeNull();
  });
  it('titles a group like "3 nodes down in prod-east"', () => {
    const down = { rule: 'Node down', builtin: 'node_down', status: 'firing' };
    expect(notificationTitle([down, down, down], 'prod-east', false)).toBe('3 nodes down in prod-east');
  });
});
