import type { TCgroupUsageSample, TNodeStatusSample, TSample } from '@clusterscope/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TTsdb } from '../client';
import { cgroupPoints, nodePoints, openTempClickHouse } from '../testing';
import { createWriter } from '../writer';
import { getBenchResults, getBenchSamples, insertBenchResults } from './bench';
import { getCgroupSeries as getCgroupCols, type TCgroupSeriesQuery } from './cgroups';
import { getEnvironment } from './environment';
import { getNodeEvents, RAW_SCAN_ALL_MAX_SPAN_MS } from './events';
import { getLatestNodes, getLatestNodeStates } from './nodes';
import { getNodeSeries } from './series';
import { selectRows } from './util';

let ch: TTsdb;
/** The cgroup read as points, for assertions. */
const getCgroupSeries = async (c: TTsdb, q: TCgroupSeriesQuery) => cgroupPoints(await getCgroupCols(c, q));
let cleanup: () => Promise<void>;

const STEP = 10_000;
const STEPS = 720; // 2 h
// Hour-aligned start two and a half hours ago (inside every TTL, raw resolution by default).
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 3_600_000;
const END = T0 + STEPS * STEP;
const A = 'org-a';
const B = 'org-b';

function liveness(node: number, k: number): TNodeStatusSample['liveness'] {
  if (node !== 2) return 'LIVE';
  if (k >= 100 && k < 110) return 'DRAINING';
  if (k >= 110 && k < 120) return 'DEAD';
  return 'LIVE';
}

function nodeSample(node: number, k: number, base = 0): TNodeStatusSample {
  const lv = liveness(node, k);
  return {
    kind: 'node_status', ts: T0 + k * STEP + node, node_id: node, address: `n${node}`, sql_address: '', locality: '',
    build: 'v1', started_at: T0, updated_at: T0 + k * STEP, liveness: lv, is_live: lv !== 'DEAD',
    is_available: lv === 'LIVE', is_draining: lv === 'DRAINING', membership: 'active',
    replicas: base + 100 + node * 10 + (k % 13), replicas_leaders: 30, replicas_leaseholders: 30 + (k % 5), ranges: 100,
    ranges_unavailable: lv === 'DEAD' ? 4 : 0, ranges_underreplicated: (k * node) % 7, live_bytes: 1e9 + k,
    key_bytes: 0, value_bytes: 0, intent_bytes: 0, system_bytes: 0, capacity: 1e12, capacity_available: 1e12 - k,
    capacity_used: k, uptime_s: k * 10,
  }; // prettier-ignore
}

function cgroupSample(host: number, k: number): TCgroupUsageSample {
  return {
    kind: 'cgroup_usage', ts: T0 + k * STEP, host: `host${host}`, node_id: host, cgroup: '/crdb', version: 2,
    cpu_usage_usec: k * STEP * 1000 * host, cpu_nr_periods: k * 100, cpu_nr_throttled: host === 2 ? k * 20 : 0,
    cpu_throttled_usec: 0, cpu_quota_usec: 200000, cpu_period_usec: 100000, cpu_weight: null, cpu_shares: null,
    mem_current: host === 2 ? 950 : 100, mem_max: 1000, mem_swap_current: 0, mem_swap_max: null, mem_anon: 0,
    mem_file: 0, io: [{ device: '8:0', rbytes: k * 4096, wbytes: k * 8192, rios: k, wios: 2 * k, rbps_max: null,
    wbps_max: null, riops_max: null, wiops_max: null }], psi: null,
  }; // prettier-ignore
}

/** Cluster c2: an awkward host name, two devices (one limited) and a CPU counter reset at k = 30. */
function limitedSample(k: number): TCgroupUsageSample {
  const base = cgroupSample(1, k);
  return {
    ...base, cluster_id: undefined, host: 'h\\x\ty', cgroup: '/a b', node_id: 0,
    cpu_usage_usec: k < 30 ? k * STEP * 1000 : (k - 30) * STEP * 500,
    // The quota is removed (unlimited) at k = 45, the io limits change at k = 42 (minute 7).
    cpu_quota_usec: k < 45 ? base.cpu_quota_usec : null,
    io: [
      { ...base.io[0], rbps_max: k < 42 ? 1_000_000 : 3_000_000, wbps_max: null },
      { ...base.io[0], device: '8:16', rbps_max: 500_000, wbps_max: null },
      { ...base.io[0], device: '7:0', rbps_max: null, wbps_max: k < 42 ? null : 250_000 },
    ],
  } as TCgroupUsageSample; // prettier-ignore
}

const nodeSamples: TNodeStatusSample[] = [];
for (let k = 0; k < STEPS; k++) for (const n of [1, 2, 3]) nodeSamples.push(nodeSample(n, k));

beforeAll(async () => {
  ({ ch, cleanup } = await openTempClickHouse());
  const w = createWriter(ch);
  const cg: TSample[] = [];
  for (let k = 0; k < STEPS; k++) for (const h of [1, 2]) cg.push(cgroupSample(h, k));
  const bench: TSample[] = [1, 2, 3].map((i) => ({
    kind: 'bench_sample', ts: T0 + i * 1000, run_id: 'run-1', elapsed_s: i, values: { tps: 100 * i, p95_ms: 10 / i },
  })); // prettier-ignore
  await Promise.all([
    w.write(A, 'c1', 'a-nodes-1', nodeSamples.slice(0, 1000)),
    w.write(A, 'c1', 'a-nodes-2', nodeSamples.slice(1000)),
    w.write(A, 'c1', 'a-cgroups', cg),
    w.write(
      A,
      'c2',
      'a-limited',
      Array.from({ length: 60 }, (_, k) => limitedSample(k)),
    ),
    w.write(A, null, 'a-bench-1', bench),
    // Org B: same cluster id and node id 1, different values, always LIVE.
    w.write(B, 'c1', 'b-nodes-1', [nodeSample(1, 5, 5000), nodeSample(1, 6, 5000)]),
  ]);
  await w.close();
});
afterAll(async () => cleanup());

describe('latest state', () => {
  it('returns the last sample per node, for one cluster or several in one query', async () => {
    const nodes = await getLatestNodes(ch, A, 'c1');
    expect(nodes.map((n) => [n.node_id, n.liveness, n.ts])).toEqual([
      [1, 'LIVE', T0 + (STEPS - 1) * STEP + 1],
      [2, 'LIVE', T0 + (STEPS - 1) * STEP + 2],
      [3, 'LIVE', T0 + (STEPS - 1) * STEP + 3],
    ]);
    expect(nodes[0]).toMatchObject({ is_live: true, started_at: T0, replicas: 110 + ((STEPS - 1) % 13) });
    const states = await getLatestNodeStates(ch, A, ['c1', 'nope']);
    expect(states.get('c1')!.map((n) => [n.node_id, n.liveness, n.ts])).toEqual(
      nodes.map((n) => [n.node_id, n.liveness, n.ts]),
    );
    expect(states.get('c1')![0]).toMatchObject({ address: nodes[0].address, ranges_unavailable: 0 });
    expect(states.get('nope')).toEqual([]);
    // null: every cluster of the org, keyed by cluster.
    const all = await getLatestNodeStates(ch, A, null);
    expect(all.get('c1')).toEqual(states.get('c1'));
    expect(all.has('nope')).toBe(false);
  });
});

describe('latest state without FINAL', () => {
  it('takes the newest row per node before merges, whatever the arrival order, NULLs included', async () => {
    await ch.client.command({ query: 'SYSTEM STOP MERGES node_latest' });
    try {
      const w = createWriter(ch, { maxDelayMs: 0 });
      const newest = { ...nodeSample(1, 50), replicas: null, address: 'new' } satisfies TNodeStatusSample;
      // Newest first, then an older sample of the same node in a later insert (another part).
      await w.write(A, 'c7', 'a-late-1', [newest, nodeSample(2, 40)]);
      await w.write(A, 'c7', 'a-late-2', [{ ...nodeSample(1, 49), address: 'old' }, nodeSample(2, 41)]);
      await w.close();
      const [{ parts }] = await selectRows<{ parts: number | string }>(
        ch,
        "SELECT count() AS parts FROM system.parts WHERE active AND table = 'node_latest'",
        {},
      );
      expect(Number(parts)).toBeGreaterThan(1);
      const nodes = await getLatestNodes(ch, A, 'c7');
      expect(nodes.map((n) => [n.node_id, n.ts, n.address, n.replicas])).toEqual([
        [1, newest.ts, 'new', null],
        [2, nodeSample(2, 41).ts, 'n2', nodeSample(2, 41).replicas],
      ]);
      const states = await getLatestNodeStates(ch, A, ['c7']);
      expect(states.get('c7')!.map((n) => [n.node_id, n.ts, n.address])).toEqual([
        [1, newest.ts, 'new'],
        [2, nodeSample(2, 41).ts, 'n2'],
      ]);
    } finally {
      await ch.client.command({ query: 'SYSTEM START MERGES node_latest' });
    }
  });
});

describe('unknown counts', () => {
  it('stores what the source did not report as NULL and reads it back as null, never 0', async () => {
    const w = createWriter(ch);
    const unknown = {
      ...nodeSample(9, 1),
      address: null, // a NULL cell of a dead node
      replicas: null, replicas_leaders: null, replicas_leaseholders: null, ranges: null, ranges_unavailable: null,
      ranges_underreplicated: null, live_bytes: null, key_bytes: null, value_bytes: null, intent_bytes: null,
      system_bytes: null, capacity: null, capacity_available: null, capacity_used: null,
    } satisfies TNodeStatusSample; // prettier-ignore
    await w.write(A, 'c9', 'a-unknown', [unknown, { ...nodeSample(8, 1), replicas: 0 }]);
    await w.close();
    const [n8, n9] = await getLatestNodes(ch, A, 'c9');
    expect(n8).toMatchObject({ node_id: 8, replicas: 0, ranges: 100 });
    expect(n9).toMatchObject({
      node_id: 9,
      address: '',
      replicas: null,
      ranges: null,
      capacity: null,
      live_bytes: null,
    });
    // The 1-minute rollup took the row without failing (its -If aggregates skip unknowns).
    const [{ c }] = await selectRows<{ c: number | string }>(
      ch,
      'SELECT count() AS c FROM node_status_1m WHERE cluster_id = {c:String}',
      { c: 'c9' },
    );
    expect(Number(c)).toBe(2);
  });
});

describe('tenancy', () => {
  it('never shows org A rows to org B', async () => {
    const nodes = await getLatestNodes(ch, B, 'c1');
    expect(nodes.map((n) => [n.node_id, n.replicas])).toEqual([[1, 5000 + 110 + 6]]);
    expect((await getLatestNodeStates(ch, B, ['c1'])).get('c1')).toHaveLength(1);
    const everyB = await getLatestNodeStates(ch, B, null);
    expect([...everyB.keys()]).toEqual(['c1']);
    expect(everyB.get('c1')).toHaveLength(1);
    const series = await getNodeSeries(ch, {
      orgId: B,
      clusterId: 'c1',
      from: T0,
      to: END,
      metrics: ['replicas'],
    });
    expect(nodePoints(series).map((p) => p.values.replicas)).toEqual([5000 + 115, 5000 + 116]);
    for (const resolution of ['1m', '1h'] as const) {
      const r = await getNodeSeries(ch, {
        orgId: B,
        clusterId: 'c1',
        from: T0,
        to: END,
        metrics: ['replicas'],
        resolution,
      });
      expect(nodePoints(r).every((p) => p.values.replicas! > 5000)).toBe(true);
    }
    expect(await getNodeEvents(ch, { orgId: B, clusterId: 'c1', from: T0, to: END })).toEqual([]);
    expect(await getCgroupSeries(ch, { orgId: B, clusterId: 'c1', from: T0, to: END })).toEqual([]);
    expect(await getBenchSamples(ch, B, ['run-1'])).toEqual([]);
    const env = await getEnvironment(ch, { orgId: B, clusterId: 'c1', from: T0, to: END });
    // B's own node reported 6 under-replicated ranges; A's dead node, unavailable ranges and cgroups stay invisible.
    expect(env).toMatchObject({
      reasons: ['up to 6 under-replicated ranges'],
      nodes_not_live: [],
      max_ranges_unavailable: 0,
    });
    expect([env.cgroups_throttled, env.max_throttled_ratio]).toEqual([[], null]);
  });
});

describe('events', () => {
  it('derives LIVE -> DRAINING -> DEAD -> LIVE', async () => {
    const ev = await getNodeEvents(ch, { orgId: A, clusterId: 'c1', from: T0, to: END });
    expect(ev).toEqual([
      { ts: T0 + 100 * STEP + 2, node_id: 2, from: 'LIVE', to: 'DRAINING' },
      { ts: T0 + 110 * STEP + 2, node_id: 2, from: 'DRAINING', to: 'DEAD' },
      { ts: T0 + 120 * STEP + 2, node_id: 2, from: 'DEAD', to: 'LIVE' },
    ]);
  });
  it('derives the same transitions at minute resolution from the 1 m rollup', async () => {
    const ev = await getNodeEvents(ch, { orgId: A, clusterId: 'c1', from: T0, to: END, source: '1m' });
    expect(ev).toEqual([
      { ts: T0 + 960_000, node_id: 2, from: 'LIVE', to: 'DRAINING' },
      { ts: T0 + 1_080_000, node_id: 2, from: 'DRAINING', to: 'DEAD' },
      { ts: T0 + 1_200_000, node_id: 2, from: 'DEAD', to: 'LIVE' },
    ]);
    // A window starting inside a minute: the change is stamped at `from`; earlier minutes are left out.
    const from = T0 + 1_100_000;
    const late = await getNodeEvents(ch, { orgId: A, clusterId: 'c1', from, to: END, source: '1m' });
    expect(late).toEqual([
      { ts: from, node_id: 2, from: 'DRAINING', to: 'DEAD' },
      { ts: T0 + 1_200_000, node_id: 2, from: 'DEAD', to: 'LIVE' },
    ]);
    // Long windows pick the rollup by default.
    const week = await getNodeEvents(ch, { orgId: A, clusterId: 'c1', from: END - 7 * 86_400_000, to: END });
    expect(week.map((e) => e.ts)).toEqual([T0 + 960_000, T0 + 1_080_000, T0 + 1_200_000]);
    expect(await getNodeEvents(ch, { orgId: B, clusterId: 'c1', from: T0, to: END, source: '1m' })).toEqual(
      [],
    );
  });
  it('keeps the newest transitions when there are more than the limit, oldest first', async () => {
    for (const source of ['raw', '1m'] as const) {
      const ev = await getNodeEvents(ch, { orgId: A, clusterId: 'c1', from: T0, to: END, source, limit: 2 });
      expect(ev.map((e) => e.to)).toEqual(['DEAD', 'LIVE']);
    }
  });
  it('finds minute transitions across hour boundaries and inside otherwise healthy hours', async () => {
    // Cluster c9, one sample a minute for 4 h: DEAD from minute 50 to the hour's end, LIVE from minute 60 (hours 1
    // and 2 have no non-LIVE sample), one DEAD minute at 210 inside an otherwise LIVE hour.
    const lv = (m: number): TNodeStatusSample['liveness'] =>
      (m >= 50 && m < 60) || m === 210 ? 'DEAD' : 'LIVE';
    const w = createWriter(ch);
    const xs = Array.from({ length: 240 }, (_, m) => ({
      ...nodeSample(1, 0),
      ts: T0 + m * 60_000,
      liveness: lv(m),
    }));
    await w.write(A, 'c9', 'a-c9', xs);
    await w.close();
    // Both reads of a long window keep only the hours that can hold a change (and the hour before each).
    for (const source of ['1m', 'raw'] as const) {
      const ev = await getNodeEvents(ch, {
        orgId: A,
        clusterId: 'c9',
        from: T0 - RAW_SCAN_ALL_MAX_SPAN_MS,
        to: T0 + 4 * 3_600_000,
        source,
      });
      expect(ev.map((e) => [(e.ts - T0) / 60_000, e.from, e.to])).toEqual([
        [50, 'LIVE', 'DEAD'],
        [60, 'DEAD', 'LIVE'],
        [210, 'LIVE', 'DEAD'],
        [211, 'DEAD', 'LIVE'],
      ]);
    }
  });
  it('sees a change at the window start through the lookback', async () => {
    const from = T0 + 110 * STEP;
    const ev = await getNodeEvents(ch, { orgId: A, clusterId: 'c1', nodeId: 2, from, to: from + 60_000 });
    expect(ev).toEqual([{ ts: from + 2, node_id: 2, from: 'DRAINING', to: 'DEAD' }]);
  });
});

/** Expected bucket aggregates computed in JS from the inserted samples. */
function expectedBuckets(bucket: number) {
  const m = new Map<string, TNodeStatusSample[]>();
  for (const s of nodeSamples) {
    const key = `${s.node_id}@${Math.floor(s.ts / bucket) * bucket}`;
    m.set(key, [...(m.get(key) ?? []), s]);
  }
  return [...m.entries()]
    .map(([key, xs]) => {
      const [node, ts] = key.split('@').map(Number);
      return {
        ts, node_id: node,
        values: {
          ranges_underreplicated: Math.max(...xs.map((x) => x.ranges_underreplicated ?? 0)),
          ranges_unavailable: Math.max(...xs.map((x) => x.ranges_unavailable ?? 0)),
          replicas: xs.reduce((a, x) => a + (x.replicas ?? 0), 0) / xs.length,
          capacity_available: Math.min(...xs.map((x) => x.capacity_available ?? 0)),
          not_live: xs.filter((x) => x.liveness !== 'LIVE').length / xs.length,
        },
      }; // prettier-ignore
    })
    .sort((a, b) => a.node_id - b.node_id || a.ts - b.ts);
}

describe('rollups', () => {
  const metrics = [
    'ranges_underreplicated',
    'ranges_unavailable',
    'replicas',
    'capacity_available',
    'not_live',
  ] as const;
  for (const [resolution, bucket, stepMs] of [
    ['1m', 60_000, undefined],
    ['1h', 3_600_000, undefined],
    ['1m', 300_000, 300_000],
  ] as const) {
    it(`${resolution} rollup${stepMs ? ` read in ${stepMs / 60_000} min buckets` : ''} equals aggregates of the raw samples`, async () => {
      const got = await getNodeSeries(ch, {
        orgId: A,
        clusterId: 'c1',
        from: T0,
        to: END,
        metrics,
        resolution,
        stepMs,
      });
      expect(got.resolution).toBe(resolution);
      const want = expectedBuckets(bucket);
      const pts = nodePoints(got);
      expect(pts.length).toBe(want.length);
      pts.forEach((p, i) => {
        expect([p.ts, p.node_id]).toEqual([want[i].ts, want[i].node_id]);
        for (const m of metrics) expect(p.values[m], `${m} @ ${p.ts}`).toBeCloseTo(want[i].values[m], 9);
      });
    });
  }

  it('raw series returns every sample of one node', async () => {
    const got = await getNodeSeries(ch, {
      orgId: A,
      clusterId: 'c1',
      nodeId: 3,
      from: T0,
      to: END,
      metrics: ['replicas'],
    });
    expect(got.resolution).toBe('raw');
    const pts = nodePoints(got);
    expect(pts).toHaveLength(STEPS);
    expect(pts[5]).toEqual({ ts: T0 + 5 * STEP + 3, node_id: 3, values: { replicas: 130 + 5 } });
  });

  it('rejects unknown metrics and bad windows', async () => {
    await expect(
      getNodeSeries(ch, { orgId: A, clusterId: 'c1', from: T0, to: END, metrics: ['nope' as 'replicas'] }),
    ).rejects.toThrow(/unknown metric "nope"/);
    await expect(
      getNodeSeries(ch, { orgId: A, clusterId: 'c1', from: END, to: T0, metrics: ['replicas'] }),
    ).rejects.toThrow(/must be after from/);
  });
});

describe('cgroups', () => {
  for (const [resolution, stepMs] of [
    ['raw', undefined],
    ['1m', undefined],
    ['1h', undefined],
    ['1m', 600_000],
  ] as const) {
    it(`derives cores, throttling and io rates (${resolution}${stepMs ? `, ${stepMs / 60_000} min buckets` : ''})`, async () => {
      const pts = await getCgroupSeries(ch, {
        orgId: A,
        clusterId: 'c1',
        host: 'host2',
        from: T0,
        to: END,
        resolution,
        stepMs,
      });
      expect(pts.length).toBeGreaterThan(1);
      if (stepMs) {
        expect(pts.length).toBe((END - T0) / stepMs);
        expect(pts.every((p) => p.ts % stepMs === 0)).toBe(true);
      }
      const later = pts.slice(1);
      for (const p of later) {
        expect(p.cpu_cores).toBeCloseTo(2, 6);
        expect(p.throttled_ratio).toBeCloseTo(0.2, 6);
        expect(p.io_read_bps).toBeCloseTo(409.6, 6);
        expect(p).toMatchObject({
          host: 'host2',
          cgroup: '/crdb',
          node_id: 2,
          cpu_limit_cores: 2,
          mem_current: 950,
          mem_max: 1000,
        });
      }
    });
  }
});

describe('cgroup io limits, names and counter resets', () => {
  const rawOf = (clusterId: string) =>
    getCgroupSeries(ch, { orgId: A, clusterId, from: T0, to: END, resolution: 'raw' });
  it('sums per-device io.max over limited devices (raw), null when no device is limited', async () => {
    const pts = await rawOf('c2');
    expect(pts).toHaveLength(60);
    expect(new Set(pts.map((p) => `${p.host}|${p.cgroup}|${p.node_id}`))).toEqual(
      new Set(['h\\x\ty|/a b|null']),
    );
    pts.forEach((p, k) =>
      expect([p.io_read_bps_limit, p.io_write_bps_limit]).toEqual(
        k < 42 ? [1_500_000, null] : [3_500_000, 250_000],
      ),
    );
    const c1 = await rawOf('c1');
    expect(c1.every((p) => p.io_read_bps_limit === null && p.io_write_bps_limit === null)).toBe(true);
  });
  it('gives rollup points the limits in force in their bucket, and no CPU rate across a counter reset', async () => {
    const raw = await rawOf('c2');
    expect(raw.map((p) => p.cpu_cores).slice(28, 33)).toEqual([1, 1, null, 0.5, 0.5]);
    expect(raw[0].cpu_cores).toBeNull();
    const q = { orgId: A, clusterId: 'c2', from: T0, to: T0 + 600_000 };
    const m = await getCgroupSeries(ch, { ...q, resolution: '1m' });
    expect(m.map((p) => p.ts)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => T0 + i * 60_000));
    expect(m.map((p) => p.cpu_cores)).toEqual([null, 1, 1, 1, 1, null, 0.5, 0.5, 0.5, 0.5]);
    expect(m.map((p) => [p.io_read_bps_limit, p.io_write_bps_limit])).toEqual(
      m.map((_, i) => (i < 7 ? [1_500_000, null] : [3_500_000, 250_000])),
    );
    // A removed quota (NULL) is the bucket's last reading, not skipped for the earlier value.
    expect(m.map((p) => p.cpu_limit_cores)).toEqual([2, 2, 2, 2, 2, 2, 2, null, null, null]);
    const h = await getCgroupSeries(ch, { ...q, to: T0 + 3_600_000, resolution: '1h' });
    expect(h.map((p) => [p.io_read_bps_limit, p.io_write_bps_limit, p.cpu_limit_cores])).toEqual([
      [3_500_000, 250_000, null],
    ]);
  });
});

describe('environment', () => {
  it('flags a window with a draining node, unavailable ranges, throttling and memory near its limit', async () => {
    for (const resolution of ['raw', '1m'] as const) {
      const env = await getEnvironment(ch, { orgId: A, clusterId: 'c1', from: T0, to: END, resolution });
      expect(env.healthy).toBe(false);
      expect(env.nodes_not_live.map((n) => [n.node_id, n.states, n.not_live_samples])).toEqual([
        [2, ['DEAD', 'DRAINING'], 20],
      ]);
      expect(env.max_ranges_unavailable).toBe(4);
      expect(env.cgroups_throttled.map((c) => c.host)).toEqual(['host2']);
      expect(env.cgroups_near_memory_limit.map((c) => c.host)).toEqual(['host2']);
      expect(env.reasons).toContain('node 2 was DEAD/DRAINING');
    }
  });
});

describe('bench', () => {
  it('reads interval samples and stores/replaces summary results', async () => {
    const s = await getBenchSamples(ch, A, ['run-1'], { metrics: ['tps'] });
    expect(s.map((x) => [x.elapsed_s, x.value])).toEqual([[1, 100], [2, 200], [3, 300]]); // prettier-ignore
    await insertBenchResults(ch, A, 'run-1', [
      { metric: 'tps', value: 200, unit: 'tx/s', direction: 'higher' },
      { metric: 'p95_ms', value: 5, unit: 'ms', direction: 'lower' },
    ], T0); // prettier-ignore
    await insertBenchResults(
      ch,
      A,
      'run-1',
      [{ metric: 'tps', value: 250, unit: 'tx/s', direction: 'higher' }],
      T0 + 1,
    );
    const r = await getBenchResults(ch, A, ['run-1']);
    expect(r.map((x) => [x.metric, x.value, x.direction])).toEqual([
      ['p95_ms', 5, 'lower'],
      ['tps', 250, 'higher'],
    ]);
    expect(await getBenchResults(ch, B, ['run-1'])).toEqual([]);
    await expect(
      insertBenchResults(ch, A, 'run-1', [{ metric: 'x', value: Number.NaN, unit: '', direction: 'higher' }]),
    ).rejects.toThrow(/results\[0\]\.value must be a finite number/);
  });
});
