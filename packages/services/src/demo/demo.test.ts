import { describe, expect, it } from 'vitest';
import { ZSample, type TCgroupUsageSample, type TNodeStatusSample } from '@clusterscope/schema';
import { DEMO_NODES, DRAIN_NODE, FLAP_NODE, demoLiveness, simulateDemo, simulateDemoMetrics } from './demo';

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

describe('simulateDemoMetrics', () => {
  const key = (m: { node_id: number | null; name: string; labels: Record<string, string> }) =>
    `${m.node_id} ${m.name} ${JSON.stringify(m.labels)}`;
  const at = (ms: number) => new Map(simulateDemoMetrics(ms).map((m) => [key(m), m]));

  it('emits valid metric samples for every live node, none for the dead one', () => {
    const samples = simulateDemoMetrics(T0);
    for (const s of samples) expect(() => ZSample.parse(s)).not.toThrow();
    expect(new Set(samples.map((s) => s.node_id))).toEqual(new Set([1, 2, 3, 4, 5]));
    const cycle = Math.floor(T0 / 7_200_000) * 7_200_000;
    const dead = simulateDemoMetrics(cycle + 4_000_000);
    expect(dead.some((s) => s.node_id === DRAIN_NODE)).toBe(false);
    expect(dead.length).toBeGreaterThan(0);
  });

  it('keeps counters monotonic (except across node 3 restarts) and buckets cumulative', () => {
    // The last reading of each series (node 3 is not scraped while dead).
    const last = at(T0);
    let resets = 0;
    for (let k = 1; k < 480; k++) {
      const ms = T0 + k * 30_000;
      const cur = at(ms);
      for (const [id, m] of cur) {
        const p = last.get(id);
        last.set(id, m);
        if (!p || m.type === 'gauge') continue;
        if (m.value < p.value) {
          expect(m.node_id).toBe(DRAIN_NODE);
          resets++;
        }
      }
      for (let node = 1; node <= DEMO_NODES; node++) {
        const buckets = [...cur.values()]
          .filter((m) => m.node_id === node && m.name === 'sql_service_latency_bucket')
          .map((m) => m.value);
        expect([...buckets].sort((x, y) => x - y)).toEqual(buckets);
      }
    }
    expect(resets).toBeGreaterThan(0);
  });

  it('gives plausible rates: hundreds of statements/s per node, node 2 aborts more', () => {
    const a = at(T0);
    const b = at(T0 + 60_000);
    const rate = (node: number, name: string) => {
      const k = key({ node_id: node, name, labels: { node_id: String(node) } });
      return (b.get(k)!.value - a.get(k)!.value) / 60;
    };
    const selects = rate(1, 'sql_select_count');
    expect(selects).toBeGreaterThan(40);
    expect(selects).toBeLessThan(400);
    expect(rate(2, 'sql_txn_abort_count') / rate(2, 'sql_txn_commit_count')).toBeGreaterThan(
      rate(1, 'sql_txn_abort_count') / rate(1, 'sql_txn_commit_count'),
    );
  });
});
