import { createDb, createOrganization, type TDb } from '@clusterscope/db';
import { unpackCharts, unpackDbCharts } from '@clusterscope/schema';
import { createWriter, type TTsdb, type TWriter } from '@clusterscope/tsdb';
import { openTempClickHouse } from '@clusterscope/tsdb/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, dropTestDatabase } from '@clusterscope/db/testing';
import type { TCaller } from '../tenancy/caller';
import {
  getClusterCharts,
  getClusterEvents,
  getClusterNodes,
  getChartsView,
  getClusterView,
  getNodeView,
  getOncall,
  listClusterHealth,
} from './dashboard';
import type { TDeps } from '../core/deps';
import {
  backfillDemo,
  DEMO_CLUSTER,
  DEMO_NODES,
  DRAIN_NODE,
  ensureDemoCluster,
  simulateDemo,
  simulateDemoMetrics,
  writeDemoTick,
} from '../demo/demo';
import { ingestPrepared } from '../ingest/ingest';
import { holdInProcess } from '../ingest/ingest-pool';
import { headOf } from '../ingest/ingest-prep';
import { createSeriesCache } from './series-cache';
import { DEMO_ORG } from '../demo/seed';

const HOUR = 3_600_000;
let url: string;
let db: TDb;
let ch: TTsdb;
let cleanupCh: () => Promise<void>;
let writer: TWriter;
let deps: TDeps;
let caller: TCaller;
let other: TCaller;
let clusterId: string;
let now: number;
const base = { kind: 'token' as const, tokenId: 't1', scopes: ['read' as const], clusterId: null };

beforeAll(async () => {
  url = await createTestDatabase();
  db = createDb(url);
  ({ ch, cleanup: cleanupCh } = await openTempClickHouse());
  deps = { db, ch };
  writer = createWriter(ch, { maxDelayMs: 5 });
  const org = await createOrganization(db, DEMO_ORG);
  const org2 = await createOrganization(db, { name: 'Other', slug: 'other' });
  caller = { ...base, orgId: org.id, orgSlug: org.slug };
  other = { ...base, orgId: org2.id, orgSlug: org2.slug };
  const demo = await ensureDemoCluster(deps);
  clusterId = demo!.cluster.id;
  // Align "now" inside node 3's LIVE phase (cycle start + 20 min) so every node is live at the end.
  now = Math.floor(Date.now() / (2 * HOUR)) * 2 * HOUR + 20 * 60_000;
  if (now > Date.now()) now -= 2 * HOUR;
  const target = { orgId: org.id, clusterId, intervalS: DEMO_CLUSTER.intervalS };
  const rows = await backfillDemo(deps, writer, target, now, 6 * HOUR);
  expect(rows).toBeGreaterThan(10_000);
}, 180_000);

afterAll(async () => {
  await writer.close();
  await db.$disconnect();
  await cleanupCh();
  await dropTestDatabase(url);
});

describe('demo backfill', () => {
  it('is idempotent: a second backfill to the same instant writes nothing', async () => {
    const rows = await backfillDemo(
      deps,
      writer,
      { orgId: caller.orgId, clusterId, intervalS: 10 },
      now,
      6 * HOUR,
    );
    expect(rows).toBe(0);
    expect((await ensureDemoCluster(deps))!.cluster.id).toBe(clusterId);
  });
});

describe('dashboard services', () => {
  it('lists cluster health with all nodes live', async () => {
    const [h] = await listClusterHealth(deps, caller, now + 1000);
    expect(h.cluster).toMatchObject({ id: clusterId, demo: true });
    expect(h.counts).toMatchObject({ total: 5, live: 5, dead: 0, stale: 0, last_ts: now });
    expect(h.status).toMatchObject({ level: 'ok', headline: 'All 5 live' });
  });

  it('shows every node STALE with its age once the agent went quiet for 3 intervals', async () => {
    const later = now + 31_000;
    const o = await getClusterNodes(deps, caller, clusterId, later);
    expect(o.nodes.map((n) => n.state)).toEqual(['STALE', 'STALE', 'STALE', 'STALE', 'STALE']);
    expect(o.status.level).toBe('stale');
    const oncall = await getOncall(deps, caller, later);
    expect(oncall.clusters[0].status.headline).toBe('No recent data');
    // Silent for a minute: still a warning; silent for hours: quiet (collapsed at the bottom of on-call).
    expect(oncall.clusters[0].severity).toBe('warning');
    const hours = await getOncall(deps, caller, now + 2 * HOUR);
    expect(hours.clusters[0].severity).toBe('quiet');
    expect(hours.summary.clusters).toMatchObject({ quiet: 1, critical: 0 });
    expect(hours.summary.nodes.STALE).toBe(5);
  });

  it('joins the latest cgroup reading against its limits', async () => {
    const o = await getClusterNodes(deps, caller, clusterId, now + 1000);
    const n2 = o.nodes.find((n) => n.node_id === 2)!;
    expect(n2.cgroup).toMatchObject({ cpu_limit_cores: 4, mem_max: 8 * 1024 ** 3 });
    expect(n2.cgroup!.cpu_cores).toBeGreaterThan(0.5);
    expect(n2.cgroup!.throttled_ratio).toBeGreaterThan(0.05);
  });

  it('reads raw for 1 h and the 1 m rollup for 6 h, with the drain cycle in ranges and events', async () => {
    const raw = await getClusterCharts(deps, caller, { clusterId, from: now - HOUR, to: now + 1 });
    expect(raw.resolution).toBe('raw');
    expect(raw.step_ms).toBe(10_000);
    expect(raw.leaseholders).toHaveLength(5);
    const six = await getClusterCharts(deps, caller, { clusterId, from: now - 6 * HOUR, to: now + 1 });
    expect(six.resolution).toBe('1m');
    expect(Math.max(...six.ranges_underreplicated.map((p) => p[1]))).toBeGreaterThan(500);
    expect(six.cpu_limit[0].data.length).toBeLessThan(5);
    const events = await getClusterEvents(deps, caller, { clusterId, from: now - 6 * HOUR, to: now + 1 });
    const drain = events.filter((e) => e.node_id === DRAIN_NODE).map((e) => e.to);
    expect(drain).toEqual(expect.arrayContaining(['DRAINING', 'DEAD', 'LIVE']));
    expect(events[0].ts).toBeGreaterThanOrEqual(events.at(-1)!.ts);
  });

  it('widens rollup buckets to keep a series under maxPoints', async () => {
    const w = { clusterId, from: now - 6 * HOUR, to: now + 1 };
    const full = await getClusterCharts(deps, caller, w);
    const few = await getClusterCharts(deps, caller, { ...w, maxPoints: 30 });
    expect([full.step_ms, few.step_ms]).toEqual([60_000, 15 * 60_000]);
    expect(few.leaseholders[0].data.length).toBeLessThanOrEqual(30);
    expect(few.leaseholders[0].data.length).toBeLessThan(full.leaseholders[0].data.length);
    // Trouble counts use the bucket max: a wider bucket never hides the drain's under-replicated peak.
    const peak = (c: typeof full) => Math.max(...c.ranges_underreplicated.map((p) => p[1]));
    expect(peak(few)).toBeGreaterThanOrEqual(peak(full));
  });

  it('gives one node its periods and recent raw samples', async () => {
    const d = await getNodeView(deps, caller, { clusterId, nodeId: DRAIN_NODE, from: now - 6 * HOUR, to: now + 1 }, now + 1000); // prettier-ignore
    expect(d.node.node_id).toBe(DRAIN_NODE);
    expect(d.periods[0]).toMatchObject({ state: 'LIVE', to: null });
    expect(d.periods.map((p) => p.state)).toContain('DEAD');
    expect(d.samples.length).toBeGreaterThan(0);
    await expect(
      getNodeView(deps, caller, { clusterId, nodeId: 99, from: now - HOUR, to: now + 1 }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('shows the database panels from the demo metrics, with the rates and p99 they imply', async () => {
    const v = await getClusterView(deps, caller, { clusterId, from: now - HOUR, to: now + 1 }, now + 1000);
    const db = v.db!;
    expect(db.step_ms).toBe(30_000);
    expect(db.statements.map((x) => x.name)).toEqual(['select', 'insert', 'update', 'delete']);
    expect(db.transactions.map((x) => x.name)).toEqual(['commits', 'aborts']);
    for (const k of ['connections', 'live_bytes', 'cpu', 'rss', 'replicas', 'leaseholders'] as const)
      expect(db[k]).toHaveLength(DEMO_NODES);
    expect(db.capacity.map((x) => x.name)).toEqual(['capacity', 'used', 'available']);

    // A step in the middle: the increase since the scrape 30 s before, per second, over the 5 nodes.
    const t = Math.floor((now - 30 * 60_000) / 30_000) * 30_000;
    const [before, at] = [simulateDemoMetrics(t - 30_000), simulateDemoMetrics(t)];
    const sum = (xs: typeof at, name: string) =>
      xs.filter((m) => m.name === name).reduce((a, m) => a + m.value, 0);
    const selects = (sum(at, 'sql_select_count') - sum(before, 'sql_select_count')) / 30;
    const point = (series: { data: [number, number | null][] }) => series.data.find((p) => p[0] === t)![1];
    // 4 significant digits: above 1000 statements/s a unit is the last digit.
    expect(Math.abs(point(db.statements[0])! - selects)).toBeLessThanOrEqual(Math.max(0.05, selects * 5e-4));

    // p99 by hand: the 30 s bucket increases summed over nodes, the rank 0.99 × total interpolated.
    const bucket = (xs: typeof at, le: string) =>
      xs
        .filter((m) => m.name === 'sql_service_latency_bucket' && m.labels.le === le)
        .reduce((a, m) => a + m.value, 0);
    const les = [...new Set(at.filter((m) => m.labels.le).map((m) => m.labels.le))];
    const cum = les.map((le) => bucket(at, le) - bucket(before, le));
    const rank = 0.99 * cum.at(-1)!;
    const i = cum.findIndex((c) => c >= rank);
    const lo = i === 0 ? 0 : Number(les[i - 1]);
    const p99 = (lo + ((Number(les[i]) - lo) * (rank - (i === 0 ? 0 : cum[i - 1]))) / (cum[i] - (i === 0 ? 0 : cum[i - 1]))) / 1e6; // prettier-ignore
    expect(point(db.latency[1])).toBeCloseTo(p99, 1);
    expect(point(db.latency[0])!).toBeLessThan(point(db.latency[1])!);

    // The node page: the same panels for that node only.
    const n = await getNodeView(
      deps,
      caller,
      { clusterId, nodeId: 2, from: now - HOUR, to: now + 1 },
      now + 1000,
    );
    expect(n.db!.connections.map((x) => x.name)).toEqual(['n2']);
    const sel2 = at.find((m) => m.node_id === 2 && m.name === 'sql_select_count')!.value;
    const sel2b = before.find((m) => m.node_id === 2 && m.name === 'sql_select_count')!.value;
    expect(point(n.db!.statements[0])).toBeCloseTo((sel2 - sel2b) / 30, 1);
  });

  it('serves the page without charts and the charts (packed) on their own, as the full view has them', async () => {
    const w = { clusterId, from: now - HOUR, to: now + 1 };
    const full = await getClusterView(deps, caller, w, now + 1000);
    const page = await getClusterView(deps, caller, { ...w, charts: false }, now + 1000);
    expect(page.charts).toBeUndefined();
    expect(page.db).toBeUndefined();
    expect(page.nodes).toEqual(full.nodes);
    expect(page.events).toEqual(full.events);
    expect(page.window).toEqual({ resolution: 'raw', step_ms: 10_000 });
    const charts = await getChartsView(deps, caller, w);
    expect(charts.charts).toEqual(full.charts);
    // Database panels: the same lines, each point within half a pixel of the panel's span (+ 4 digits).
    const db = unpackDbCharts(charts.db);
    expect(db.statements.map((x) => x.name)).toEqual(full.db!.statements.map((x) => x.name));
    const span = Math.max(...full.db!.statements.flatMap((x) => x.data.map((p) => p[1] ?? 0)));
    const last = (xs: typeof db.statements) => xs.map((x) => x.data.at(-1)![1]!);
    last(db.statements).forEach((v, i) =>
      expect(Math.abs(v - last(full.db!.statements)[i])).toBeLessThanOrEqual(span / 440 + Math.abs(v) * 5e-4),
    );
    expect(JSON.stringify(charts.db).length).toBeLessThan(JSON.stringify(full.db).length);
    const node = await getChartsView(deps, caller, { ...w, nodeId: 2 });
    expect(unpackDbCharts(node.db).connections.map((x) => x.name)).toEqual(['n2']);
    expect(node.charts.cpu.map((x) => x.name)).toEqual(['n2']);
  });

  it('writes live ticks that move last-heard forward', async () => {
    await writeDemoTick(writer, { orgId: caller.orgId, clusterId, intervalS: 10 }, now + 10_000);
    await writer.flush();
    const [h] = await listClusterHealth(deps, caller, now + 11_000);
    expect(h.counts.last_ts).toBe(now + 10_000);
  });

  it('hides the cluster from another organization (NOT_FOUND) and lists nothing there', async () => {
    await expect(getClusterNodes(deps, other, clusterId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      getClusterCharts(deps, other, { clusterId, from: now - HOUR, to: now }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await listClusterHealth(deps, other)).toEqual([]);
    expect((await getOncall(deps, other)).clusters).toEqual([]);
  });
});

/** One demo node_status sample at `at` for `nodeId`, ingested as an agent's batch. */
function ingestSample(d: TDeps, batchId: string, at: number, nodeId: number) {
  const ingest: TCaller = {
    ...base,
    scopes: ['ingest'],
    clusterId,
    orgId: caller.orgId,
    orgSlug: caller.orgSlug,
  };
  const one = simulateDemo(at).find((x) => x.kind === 'node_status')!;
  const samples = [{ ...one, node_id: nodeId }];
  return ingestPrepared(d, ingest, holdInProcess(headOf({ batchId, samples }), samples), writer);
}

describe('series cache', () => {
  it('answers a quiet cluster from memory, and shows an ingested sample at once', async () => {
    // After the newest sample so far (the tick at now + 10 s).
    let clock = now + 20_000;
    const series = createSeriesCache({ maxBytes: 64 << 20, now: () => clock });
    let queries = 0;
    let running = 0;
    const client = new Proxy(ch.client, {
      get(target, key) {
        const v = Reflect.get(target, key, target) as unknown;
        if (typeof v !== 'function') return v;
        return (...a: unknown[]) => {
          queries++;
          const r = (v as (...a: unknown[]) => unknown).apply(target, a);
          if (r instanceof Promise) {
            running++;
            r.finally(() => running--).catch(() => undefined);
          }
          return r;
        };
      },
    });
    const counted: TDeps = { ...deps, ch: { ...ch, client }, series };
    const view = () => getClusterView(counted, caller, { clusterId, from: clock - HOUR, to: clock }, clock);
    const oncall = () => getOncall(counted, caller, clock);
    const charts = (d: TDeps) => getChartsView(d, caller, { clusterId, from: clock - HOUR, to: clock });
    const uncached = () => getClusterView(deps, caller, { clusterId, from: clock - HOUR, to: clock }, clock);
    series.notices(true);
    clock += 1;
    const first = await view();
    await oncall();
    await charts(counted);
    expect(queries).toBeGreaterThan(0);
    // Quiet: the same answers without a ClickHouse query (latest states, events, charts, panels).
    clock += 2_000;
    queries = 0;
    expect(await view()).toEqual(await uncached());
    await oncall();
    // The charts of a window that starts in the same step: the first answer (one reuse), for this window.
    const reused = series.stats.quiet;
    expect(await charts(counted)).toEqual(await charts(deps));
    expect(series.stats.quiet).toBe(reused + 1);
    expect(queries).toBe(0);
    // A window that starts in the same step but ends earlier is its own answer.
    const half = { clusterId, from: clock - HOUR, to: clock - HOUR / 2 };
    expect(await getChartsView(counted, caller, half)).toEqual(await getChartsView(deps, caller, half));
    expect(queries).toBeGreaterThan(0);
    expect(first.nodes.map((n) => n.last_ts)).toEqual((await uncached()).nodes.map((n) => n.last_ts));

    // A sample ingested through this instance is in the next answer (no notice needed).
    expect((await ingestSample(counted, 'quiet-1', clock, 1)).late).toBe(false);
    clock += 1_000;
    queries = 0;
    const after = await view();
    expect(queries).toBeGreaterThan(0);
    expect(after.nodes.find((n) => n.node_id === 1)?.last_ts).toBe(clock - 1_000);
    expect(after).toEqual(await uncached());
    const chartsAfter = await charts(counted);
    expect(chartsAfter).toEqual(await charts(deps));
    const n1 = unpackCharts(chartsAfter.charts).leaseholders.find((l) => l.node_id === 1);
    expect(n1?.data.at(-1)?.[0]).toBe(clock - 1_000);
    expect((await oncall()).clusters[0].nodes.find((n) => n.node_id === 1)?.last_ts).toBe(clock - 1_000);

    // A page that follows notices (it asked again after the last one): after the next sample, the charts of
    // the window ending then are read before it asks (refresh-ahead slides the window), and hold it.
    queries = 0;
    expect((await ingestSample(counted, 'quiet-2', clock, 1)).late).toBe(false);
    clock += 1_000;
    await vi.waitFor(() => expect(queries > 0 && running === 0).toBe(true));
    await new Promise((r) => setTimeout(r, 10));
    queries = 0;
    const slid = await charts(counted);
    expect(queries).toBe(0);
    expect(slid).toEqual(await charts(deps));
    const n1b = unpackCharts(slid.charts).leaseholders.find((l) => l.node_id === 1);
    expect(n1b?.data.at(-1)?.[0]).toBe(clock - 1_000);
  });

  it('gives the charts ClickHouse gives as the window moves, and a late sample drops what it cached', async () => {
    let clock = now - 30 * 60_000;
    const series = createSeriesCache({ maxBytes: 256 << 20, now: () => clock });
    const cached: TDeps = { ...deps, series };
    // Windows end in the past (the demo data ends at `now`); `clock` plays the wall clock.
    const windows = [
      { span: HOUR, shift: 9 * 60_000 + 13_000 }, // raw (entries live 10 min); not a step multiple
      { span: 24 * HOUR, shift: 7 * 60_000 }, // 1 m rollup widened to 5 min: the shift is not a bucket multiple
    ];
    for (const { span, shift } of windows)
      for (const nodeId of [undefined, DRAIN_NODE]) {
        clock = now - 30 * 60_000;
        const w1 = { clusterId, nodeId, from: clock - span, to: clock };
        expect(await getChartsView(cached, caller, w1)).toEqual(await getChartsView(deps, caller, w1));
        clock += shift;
        const w2 = { clusterId, nodeId, from: clock - span, to: clock };
        const hits = series.stats.hits;
        const got = await getChartsView(cached, caller, w2);
        // Node series, cgroup series and the four database panel reads (rates, gauges, SQL gauges, latency).
        expect(series.stats.hits).toBe(hits + 6);
        expect(got).toEqual(await getChartsView(deps, caller, w2));
        expect(unpackDbCharts(got.db).statements.length).toBe(4);
      }

    // Events of windows over a day come from the 1 m rollup, through the cache too; the second window
    // ends past a transition the first one did not reach (it comes from the read of the newer part).
    const all = await getClusterEvents(deps, caller, { clusterId, from: now - 2 * 24 * HOUR, to: now });
    const change = all.find((e) => e.ts < now - HOUR && e.node_id === DRAIN_NODE)!;
    const start = change.ts - 3 * 60_000;
    clock = start;
    for (const nodeId of [undefined, DRAIN_NODE]) {
      const w1 = { clusterId, nodeId, from: clock - 2 * 24 * HOUR, to: clock };
      const first = await getClusterEvents(cached, caller, w1);
      expect(first.length).toBeGreaterThan(2);
      expect(first).toEqual(await getClusterEvents(deps, caller, w1));
      const w2 = { ...w1, from: w1.from + 7 * 60_000 + 13_000, to: w1.to + 7 * 60_000 + 13_000 };
      const hits = series.stats.hits;
      clock += 7 * 60_000 + 13_000;
      expect(await getClusterEvents(cached, caller, w2)).toEqual(await getClusterEvents(deps, caller, w2));
      expect(series.stats.hits).toBe(hits + 1);
      expect((await getClusterEvents(cached, caller, w2)).map((e) => e.ts)).toContain(change.ts);
      clock = start;
    }

    // Events of shorter windows come from raw samples, through the cache as well (the newer part looks back 10 min).
    const recent = await getClusterEvents(deps, caller, { clusterId, from: now - 6 * HOUR, to: now });
    const rawChange = recent.find((e) => e.ts < now - 20 * 60_000 && e.node_id === DRAIN_NODE)!;
    for (const nodeId of [undefined, DRAIN_NODE]) {
      clock = rawChange.ts - 3 * 60_000;
      const w1 = { clusterId, nodeId, from: clock - HOUR, to: clock };
      expect(await getClusterEvents(cached, caller, w1)).toEqual(await getClusterEvents(deps, caller, w1));
      clock += 7 * 60_000 + 13_000;
      const w2 = { clusterId, nodeId, from: clock - HOUR, to: clock };
      const hits = series.stats.hits;
      const got = await getClusterEvents(cached, caller, w2);
      expect(series.stats.hits).toBe(hits + 1);
      expect(got).toEqual(await getClusterEvents(deps, caller, w2));
      expect(got.map((e) => e.ts)).toContain(rawChange.ts);
    }

    // A node_status sample 50 min old (behind the freshness edge) for a node the charts have not seen.
    const w = { clusterId, from: clock - HOUR, to: clock };
    await getClusterCharts(cached, caller, w);
    const lateAt = clock - 50 * 60_000;
    expect((await ingestSample(cached, 'late-1', lateAt, 99)).late).toBe(true);
    const hits = series.stats.hits;
    const after = await getClusterCharts(cached, caller, w);
    expect(after.leaseholders.map((s) => s.name)).toContain('n99');
    expect(after).toEqual(await getClusterCharts(deps, caller, w));
    expect(series.stats.hits).toBe(hits);
  });
});
