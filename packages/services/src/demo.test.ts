import { describe, expect, it } from 'vitest';
import { ZSample, type TCgroupUsageSample, type TNodeStatusSample } from '@clusterscope/schema';
import { DEMO_NODES, DRAIN_NODE, FLAP_NODE, demoLiveness, simulateDemo } from './demo';

const T0 = Date.UTC(2026, 10, 20, 0, 0, 0);
const nodesAt = (ms: number) =>
  simulateDemo(ms).filter((s): s is TNodeStatusSample => s.kind === 'node_status');
const cgAt = (ms: number) =>
  simulateDemo(ms).filter((s): s is TCgroupUsageSample => s.kind === 'cgroup_usage');

describe('simulateDemo', () => {
  it('emits one valid node_status and cgroup sample per node', () => {
    const samples = simulateDemo(T0);
    expect(samples).toHaveLength(DEMO_NODES * 2);
    for (const s of samples) expect(() => ZSample.parse(s)).not.toThrow();
  });

  it('drains node 3, then it is dead, then live again within each 2 h cycle', () => {
    const seen: string[] = [];
    for (let s = 0; s < 7200; s += 10) {
      const lv = demoLiveness(DRAIN_NODE, T0 / 1000 + s);
      if (seen.at(-1) !== lv) seen.push(lv);
    }
    expect(seen).toEqual(['LIVE', 'DRAINING', 'DEAD', 'LIVE']);
  });

  it('flaps node 5 to UNAVAILABLE for two samples every 3 h', () => {
    let unavailable = 0;
    for (let s = 0; s < 10_800; s += 10)
      if (demoLiveness(FLAP_NODE, T0 / 1000 + s) === 'UNAVAILABLE') unavailable++;
    expect(unavailable).toBe(2);
  });

  it('keeps cgroup counters monotonic and CPU within the limit on average', () => {
    let prev = cgAt(T0);
    for (let k = 1; k < 360; k++) {
      const cur = cgAt(T0 + k * 10_000);
      cur.forEach((c, i) => {
        const p = prev[i];
        expect(c.cpu_usage_usec).toBeGreaterThanOrEqual(p.cpu_usage_usec);
        expect(c.cpu_nr_throttled).toBeGreaterThanOrEqual(p.cpu_nr_throttled);
        expect(c.io[0].wbytes).toBeGreaterThanOrEqual(p.io[0].wbytes);
        const cores = (c.cpu_usage_usec - p.cpu_usage_usec) / 10e6;
        expect(cores).toBeGreaterThan(0);
        expect(cores).toBeLessThanOrEqual(4.3);
        expect(c.mem_current).toBeLessThan(c.mem_max!);
      });
      prev = cur;
    }
  });

  it('moves leases off the draining node and reports under-replicated ranges while it is dead', () => {
    const cycle = Math.floor(T0 / 7_200_000) * 7_200_000;
    const live = nodesAt(cycle + 1000 * 1000);
    const dying = nodesAt(cycle + 3_890_000);
    const dead = nodesAt(cycle + 4_000_000);
    const lease = (xs: TNodeStatusSample[], n: number) => xs[n - 1].replicas_leaseholders ?? NaN;
    expect(lease(dying, DRAIN_NODE)).toBeLessThan(lease(live, DRAIN_NODE) / 5);
    expect(dead[DRAIN_NODE - 1].liveness).toBe('DEAD');
    expect(dead[0].ranges_underreplicated).toBeGreaterThan(0);
    expect(live[0].ranges_underreplicated).toBe(0);
    const total = (xs: TNodeStatusSample[]) => xs.reduce((a, n) => a + (n.replicas_leaseholders ?? NaN), 0);
    expect(Math.abs(total(dying) - total(live))).toBeLessThan(10);
  });
});
