import { describe, expect, it } from 'vitest';
import {
  clusterStatus,
  countHealth,
  deriveNodeState,
  sortWorstFirst,
  sumAcrossNodes,
  toStatePeriods,
  type TNodeLike,
  type TNodeState,
} from './health-views';

const NOW = 1_000_000_000;
const node = (state: TNodeState, extra: Partial<TNodeLike> = {}): TNodeLike => ({
  state,
  last_ts: NOW - 5000,
  ranges_underreplicated: 0,
  ranges_unavailable: 0,
  ...extra,
});

describe('deriveNodeState', () => {
  it('is STALE after 3 intervals of silence, whatever the last liveness said', () => {
    expect(deriveNodeState('LIVE', NOW - 30_000, NOW, 10)).toBe('LIVE');
    expect(deriveNodeState('LIVE', NOW - 30_001, NOW, 10)).toBe('STALE');
    expect(deriveNodeState('DRAINING', NOW - 170_000, NOW, 60)).toBe('DRAINING');
    expect(deriveNodeState('DEAD', NOW - 10 * 60_000, NOW, 10)).toBe('STALE');
  });
  it('keeps DECOMMISSIONED (a removed node is not expected to report)', () => {
    expect(deriveNodeState('DECOMMISSIONED', 0, NOW, 10)).toBe('DECOMMISSIONED');
  });
});

describe('countHealth + clusterStatus', () => {
  it('says all live when every node is live', () => {
    const c = countHealth([node('LIVE'), node('LIVE'), node('LIVE')]);
    expect(c).toMatchObject({ total: 3, live: 3, dead: 0, stale: 0 });
    expect(c.states.LIVE).toBe(3);
    expect(clusterStatus(c)).toMatchObject({ level: 'ok', headline: 'All 3 live' });
  });
  it('puts dead before unavailable and names unavailable ranges', () => {
    const c = countHealth([
      node('DEAD'),
      node('UNAVAILABLE'),
      node('LIVE', { ranges_unavailable: 2, ranges_underreplicated: 7 }),
    ]);
    const s = clusterStatus(c);
    expect(s).toMatchObject({ level: 'bad', headline: '1 dead · 1 unavailable' });
    expect(s.details).toEqual(['2 unavailable ranges', '7 under-replicated ranges']);
  });
  it('says STALE (the badge word) for silent nodes and ignores their (old) range counts', () => {
    const c = countHealth([node('STALE', { ranges_underreplicated: 9 }), node('LIVE')]);
    expect(c).toMatchObject({ stale: 1, ranges_underreplicated: 0 });
    expect(c.states.STALE).toBe(1);
    expect(clusterStatus(c)).toMatchObject({ level: 'warn', headline: '1 stale', details: [] });
  });
  it('is bad (not a warning) for an UNAVAILABLE node', () => {
    const c = countHealth([node('UNAVAILABLE'), node('LIVE'), node('STALE')]);
    expect(clusterStatus(c)).toMatchObject({ level: 'bad', headline: '1 unavailable', details: ['1 stale'] });
  });
  it('is stale when nothing was heard from any node', () => {
    const c = countHealth([node('STALE'), node('STALE')]);
    expect(clusterStatus(c)).toMatchObject({ level: 'stale', headline: 'No recent data' });
  });
  it('warns while a node drains and skips decommissioned nodes', () => {
    const c = countHealth([node('DRAINING'), node('LIVE'), node('DECOMMISSIONED')]);
    expect(c.total).toBe(2);
    expect(clusterStatus(c)).toMatchObject({ level: 'warn', headline: '1/2 live' });
  });
  it('is empty without nodes', () => {
    expect(clusterStatus(countHealth([]))).toMatchObject({ level: 'empty' });
    expect(countHealth([]).last_ts).toBeNull();
  });
});

describe('clusterStatus with alerts and inputs', () => {
  const live = countHealth([node('LIVE'), node('LIVE'), node('LIVE')]);
  const alert = (
    id: string,
    severity: 'critical' | 'warning' | 'info',
    summary: string,
    silenced = false,
    firedAt = NOW - 60_000,
  ) => ({ id, severity, summary, silenced, firedAt });

  it('is at least the worst firing severity, and the headline names the alert', () => {
    const one = clusterStatus(live, {
      now: NOW,
      alerts: [alert('a', 'warning', 'node 4 memory 95 % of limit')],
    });
    expect(one).toMatchObject({ level: 'warn', headline: 'node 4 memory 95 % of limit' });
    expect(one.details).toContain('All 3 live');
    const two = clusterStatus(live, {
      now: NOW,
      alerts: [alert('a', 'warning', 'disk 81 %'), alert('b', 'critical', 'node 4 memory 95 % of limit')],
    });
    expect(two).toMatchObject({
      level: 'bad',
      headline: '2 alerts firing · worst: node 4 memory 95 % of limit',
      alerts: { firing: 2, silenced: 0, worst: { id: 'b', severity: 'critical' } },
    });
  });
  it('lists silenced alerts without raising the level', () => {
    const s = clusterStatus(live, { now: NOW, alerts: [alert('a', 'critical', 'x', true)] });
    expect(s).toMatchObject({
      level: 'ok',
      headline: 'All 3 live',
      alerts: { firing: 0, silenced: 1, worst: null },
    });
    expect(s.details).toEqual(['1 silenced alert']);
  });
  it('keeps a worse node headline and adds the alert as a detail', () => {
    const c = countHealth([node('DEAD'), node('LIVE')]);
    const s = clusterStatus(c, { now: NOW, alerts: [alert('a', 'warning', 'disk 81 %')] });
    expect(s).toMatchObject({ level: 'bad', headline: '1 dead' });
    expect(s.details).toContain('disk 81 %');
  });
  it('an info alert never raises the level', () => {
    expect(clusterStatus(live, { now: NOW, alerts: [alert('a', 'info', 'n2 draining')] })).toMatchObject({
      level: 'ok',
      details: ['n2 draining'],
    });
  });
  it('names a failing input, for how long and why', () => {
    const input = {
      agent: 'db1',
      input: 'cockroachdb',
      error: 'connection refused (http://…:8080)',
      since: NOW - 6 * 60_000,
      failures: 72,
    };
    expect(clusterStatus(countHealth([]), { now: NOW, inputs: [input] })).toMatchObject({
      level: 'warn',
      headline: 'cockroachdb input failing for 6 min: connection refused (http://…:8080)',
    });
    expect(clusterStatus(live, { now: NOW, inputs: [input] }).level).toBe('warn');
  });
});

describe('sortWorstFirst', () => {
  it('orders by severity, then longest silence, then id', () => {
    const sorted = sortWorstFirst([
      { node_id: 1, state: 'LIVE', last_ts: 5 },
      { node_id: 2, state: 'STALE', last_ts: 9 },
      { node_id: 3, state: 'DEAD', last_ts: 9 },
      { node_id: 4, state: 'STALE', last_ts: 1 },
      { node_id: 5, state: 'DRAINING', last_ts: 9 },
    ] as const);
    expect(sorted.map((n) => n.node_id)).toEqual([3, 4, 2, 5, 1]);
  });
});

describe('toStatePeriods', () => {
  it('builds newest-first periods from transitions', () => {
    const periods = toStatePeriods(
      [
        { ts: 100, from: 'LIVE', to: 'DRAINING' },
        { ts: 200, from: 'DRAINING', to: 'DEAD' },
      ],
      0,
      'DEAD',
    );
    expect(periods).toEqual([
      { state: 'DEAD', from: 200, to: null },
      { state: 'DRAINING', from: 100, to: 200 },
      { state: 'LIVE', from: 0, to: 100 },
    ]);
  });
  it('uses the current state when nothing changed', () => {
    expect(toStatePeriods([], 5, 'LIVE')).toEqual([{ state: 'LIVE', from: 5, to: null }]);
    expect(toStatePeriods([], 5, null)).toEqual([]);
  });
});

describe('sumAcrossNodes', () => {
  it('sums the last value of each node per bucket and skips NaN', () => {
    const s = sumAcrossNodes(
      [
        { t: [1000, 1900, 2100], v: [2, 4, NaN] },
        { t: [1500, 2200], v: [3, 1] },
        { t: [2500], v: [NaN] },
      ],
      1000,
    );
    expect(s).toEqual({ t: [1000, 2000], v: [7, 1] });
  });
});
