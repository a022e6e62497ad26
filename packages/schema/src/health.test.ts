import { describe, expect, it } from 'vitest';
import {
  QUIET_AFTER_MS,
  TIME_UNTIL_STORE_DEAD_MS,
  clusterSeverity,
  deadFromSilence,
  orderOncall,
  type TNodeState,
  type TSeverityFacts,
} from './health';

const NOW = 10_000_000_000;
const cluster = (
  name: string,
  states: TNodeState[],
  level: TSeverityFacts['level'],
  extra: { ranges_unavailable?: number; ranges_underreplicated?: number; last_ts?: number | null } = {},
) => ({
  name,
  level,
  states,
  ranges_unavailable: 0,
  ranges_underreplicated: 0,
  last_ts: states.length ? NOW - 5_000 : null,
  ...extra,
});

describe('clusterSeverity', () => {
  it('follows the level of the one status', () => {
    expect(clusterSeverity(cluster('a', ['LIVE', 'DEAD'], 'bad'), NOW)).toBe('critical');
    expect(clusterSeverity(cluster('a', ['LIVE'], 'warn'), NOW)).toBe('warning');
    expect(clusterSeverity(cluster('a', ['LIVE', 'DECOMMISSIONED'], 'ok'), NOW)).toBe('ok');
  });
  it('is quiet when never reported or silent for long, a warning when silent only recently', () => {
    expect(clusterSeverity(cluster('a', [], 'empty'), NOW)).toBe('quiet');
    const silent = (ago: number) => cluster('a', ['STALE', 'STALE'], 'stale', { last_ts: NOW - ago });
    expect(clusterSeverity(silent(QUIET_AFTER_MS + 1), NOW)).toBe('quiet');
    expect(clusterSeverity(silent(5 * 60_000), NOW)).toBe('warning');
  });
});

describe('orderOncall', () => {
  it('puts the problem first and quiet clusters last, with counts per severity and state', () => {
    // The case: a node UNAVAILABLE with 40 under-replicated ranges came 9th, below 8 silent clusters.
    const quiet = Array.from({ length: 8 }, (_, i) =>
      cluster(`a-silent-${i}`, i % 2 ? [] : ['STALE'], i % 2 ? 'empty' : 'stale', {
        last_ts: i % 2 ? null : NOW - 2 * QUIET_AFTER_MS,
      }),
    );
    const { clusters, summary } = orderOncall(
      [
        ...quiet,
        cluster('b-ok', ['LIVE', 'LIVE'], 'ok'),
        cluster('c-underrepl', ['LIVE', 'LIVE'], 'warn', { ranges_underreplicated: 2 }),
        cluster('d-stale-node', ['LIVE', 'STALE'], 'warn'),
        cluster('z-broken', ['LIVE', 'UNAVAILABLE', 'LIVE'], 'bad', { ranges_underreplicated: 40 }),
        cluster('e-dead', ['DEAD', 'LIVE', 'LIVE'], 'bad'),
        cluster('f-decom', ['LIVE', 'DECOMMISSIONED'], 'ok'),
      ],
      NOW,
    );
    // Both have one broken node; z-broken also has 40 under-replicated ranges.
    expect(clusters.map((c) => c.name)).toEqual([
      'z-broken',
      'e-dead',
      'd-stale-node',
      'c-underrepl',
      'b-ok',
      'f-decom',
      ...quiet.map((c) => c.name),
    ]);
    expect(clusters.map((c) => c.severity).slice(0, 6)).toEqual([
      'critical',
      'critical',
      'warning',
      'warning',
      'ok',
      'ok',
    ]);
    expect(summary.clusters).toEqual({ critical: 2, warning: 2, ok: 2, quiet: 8 });
    expect(summary.nodes).toMatchObject({ LIVE: 10, DEAD: 1, UNAVAILABLE: 1, STALE: 5, DECOMMISSIONED: 1 });
    expect(summary.nodes.DRAINING).toBe(0);
  });
  it('within a group, more broken nodes and ranges come first', () => {
    const { clusters } = orderOncall(
      [
        cluster('a', ['LIVE'], 'bad', { ranges_unavailable: 1 }),
        cluster('b', ['DEAD', 'DEAD'], 'bad'),
        cluster('c', ['DEAD'], 'bad', { ranges_unavailable: 5 }),
      ],
      NOW,
    );
    expect(clusters.map((c) => c.name)).toEqual(['b', 'c', 'a']);
  });
});

describe('deadFromSilence', () => {
  it('is DEAD only after time_until_store_dead of silence by the cluster clock', () => {
    expect(TIME_UNTIL_STORE_DEAD_MS).toBe(300_000);
    expect(deadFromSilence(16_000)).toBe(false);
    expect(deadFromSilence(299_999)).toBe(false);
    expect(deadFromSilence(300_000)).toBe(true);
    expect(deadFromSilence(null)).toBe(false); // no timestamps: not live, but not proven dead
    expect(deadFromSilence(60_000, 30_000)).toBe(true);
  });
});
