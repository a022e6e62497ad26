/**
 * `npm run bench:query`: dashboard query latency on 30 days × 50 nodes × 10 s of history.
 *
 * 1. Generates ~13M node_status + ~13M cgroup_usage rows with the tsdb bench-data generator into its OWN
 *    chDB directory, $DATA_DIR/bench-query (the app's chDB dir cannot be shared while the app runs).
 *    The directory is cached: later runs reuse it (delete it, or set BENCH_REGENERATE=1, to rebuild).
 * 2. Times the service functions behind the pages, called in-process the way the tRPC procedures call
 *    them (same TDeps + TCaller): overview = cluster list health + node table; 24 h and 30-day charts
 *    as the cluster page fetches them (`getChartsView`: health charts and database panels, packed) at the
 *    default maxPoints (30 days: 1 h rollup read in 2 h buckets, 360 points per series).
 *    `chart30d_tuples_*`: the same health charts as `dashboard.charts` returns them ([t, v] pairs).
 *    `chart30d_cached_*`: the 30-day page charts through the app's series cache, the window moving with the
 *    clock (a live page: settled buckets from memory, the newer part from ClickHouse).
 * 3. Times the same 30-day charts computed from the raw tables (hourly GROUP BY over node_status and
 *    cgroup_usage, i.e. what the 1 h rollups precompute), and the rollup queries alone at the same level.
 * Prints ONE JSON line. Postgres is not started: the one metadata lookup the services make (the cluster
 * row) is served by an in-memory fake of the two Prisma calls they use.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TDb } from '@clusterscope/db';
import { type TDeps } from '@clusterscope/services/core';
import {
  createSeriesCache,
  getChartsView,
  getClusterCharts,
  getClusterNodes,
  listClusterHealth,
} from '@clusterscope/services/reads';
import { type TCaller } from '@clusterscope/services/tenancy';
import { getCgroupSeries, getNodeSeries, migrate, openClickHouse, type TTsdb } from '@clusterscope/tsdb';
import { loadBenchData } from '@clusterscope/tsdb/testing';
import { readLaunchEnv } from './lib/env';
import { pct, r1, timeCalls } from './lib/stats';

const env = readLaunchEnv();
const DIR = path.join(env.DATA_DIR, 'bench-query');
const META = path.join(DIR, 'meta.json');
const CH_DIR = path.join(DIR, 'clickhouse');
const intArg = (name: string, def: number) => {
  const raw = process.env[name];
  const v = raw === undefined || raw === '' ? def : Number(raw);
  if (!Number.isInteger(v) || v <= 0) {
    console.error(`bench-query: ${name} must be a positive integer, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return v;
};
const NODES = intArg('BENCH_NODES', 50);
const DAYS = intArg('BENCH_DAYS', 30);
const ITER = intArg('BENCH_ITERATIONS', 30);
const log = (m: string) => console.error(`bench-query: ${m}`);

interface TMeta {
  orgId: string;
  clusterId: string;
  nodes: number;
  days: number;
  endMs: number;
  nodeStatusRows: number;
  cgroupRows: number;
  generateMs: number;
}

async function prepare(ch: TTsdb): Promise<TMeta> {
  if (fs.existsSync(META) && !process.env.BENCH_REGENERATE) {
    const m = JSON.parse(fs.readFileSync(META, 'utf8')) as TMeta;
    if (m.nodes === NODES && m.days === DAYS) {
      log(`reusing ${m.nodeStatusRows} node_status rows generated earlier in ${DIR}`);
      return m;
    }
  }
  const orgId = 'bench-org';
  const clusterId = 'bench-cluster';
  log(`generating ${DAYS} days × ${NODES} nodes × 10 s into ${CH_DIR} (one-time)…`);
  const r = await loadBenchData(ch, { orgId, clusterId, nodes: NODES, days: DAYS, intervalS: 10 });
  const meta: TMeta = {
    orgId,
    clusterId,
    nodes: NODES,
    days: DAYS,
    endMs: r.toMs,
    nodeStatusRows: r.nodeStatusRows,
    cgroupRows: r.cgroupRows,
    generateMs: r.ms,
  };
  fs.writeFileSync(META, JSON.stringify(meta, null, 2));
  log(`generated ${r.nodeStatusRows} + ${r.cgroupRows} rows in ${(r.ms / 1000).toFixed(1)} s`);
  return meta;
}

/** A fake of the two Prisma calls the dashboard services make (cluster lookups); no Postgres needed. */
function fakeDb(meta: TMeta): TDb {
  const cluster = {
    id: meta.clusterId,
    organizationId: meta.orgId,
    name: 'bench',
    description: '',
    demo: false,
    intervalS: 10,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };
  const match = (where: { id?: string; organizationId?: string }) =>
    (where.organizationId === undefined || where.organizationId === meta.orgId) &&
    (where.id === undefined || where.id === meta.clusterId);
  return {
    cluster: {
      findFirst: async ({ where }: { where: { id?: string; organizationId?: string } }) =>
        match(where) ? cluster : null,
      findMany: async ({ where }: { where: { organizationId?: string } }) => (match(where) ? [cluster] : []),
    },
  } as unknown as TDb;
}

async function time(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  await fn(); // warm-up
  return timeCalls(n, fn);
}

async function main() {
  fs.mkdirSync(DIR, { recursive: true });
  const ch = await openClickHouse({ path: CH_DIR });
  await migrate(ch);
  const meta = await prepare(ch);
  const deps: TDeps = { db: fakeDb(meta), ch };
  const caller: TCaller = {
    kind: 'user',
    userId: 'bench',
    orgId: meta.orgId,
    orgSlug: 'bench',
    role: 'viewer',
  };
  const now = meta.endMs + 5_000;
  const to = meta.endMs + 1;
  const day = { clusterId: meta.clusterId, from: to - 86_400_000, to };
  const month = { clusterId: meta.clusterId, from: to - DAYS * 86_400_000, to };

  const overview = await time(ITER, () =>
    Promise.all([listClusterHealth(deps, caller, now), getClusterNodes(deps, caller, meta.clusterId, now)]),
  );
  const chart24h = await time(ITER, () => getChartsView(deps, caller, day));
  const chart30d = await time(ITER, () => getChartsView(deps, caller, month));
  const chart30dTuples = await time(ITER, () => getClusterCharts(deps, caller, month));
  const sample = (await getChartsView(deps, caller, month)).charts;
  // The same charts as the app serves a live page: through its series cache, the window moving with a
  // clock that starts at the data's end (so the newer part ClickHouse reads holds the last samples).
  const t0 = performance.now();
  const clock = () => meta.endMs + Math.round(performance.now() - t0);
  const cached: TDeps = { ...deps, series: createSeriesCache({ maxBytes: 64 << 20, now: clock }) };
  const moving = () => ({ ...month, from: clock() - DAYS * 86_400_000, to: clock() });
  const chart30dCached = await time(ITER, () => getChartsView(cached, caller, moving()));

  // Same 30-day hourly charts at the query level: rollup (tsdb repositories) vs raw (GROUP BY hour).
  const q = { orgId: meta.orgId, clusterId: meta.clusterId, from: month.from, to: month.to };
  const rollupQueries = await time(ITER, () =>
    Promise.all([
      getNodeSeries(ch, {
        ...q,
        resolution: '1h',
        metrics: ['ranges_underreplicated', 'ranges_unavailable', 'replicas_leaseholders'],
      }),
      getCgroupSeries(ch, { ...q, resolution: '1h' }),
    ]),
  );
  const params = { org_id: q.orgId, cluster_id: q.clusterId, from: q.from, to: q.to };
  const window = `org_id = {org_id:String} AND cluster_id = {cluster_id:String}
    AND ts >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND ts < fromUnixTimestamp64Milli({to:Int64}, 'UTC')`;
  const rawNode = `SELECT node_id, toUnixTimestamp(toStartOfHour(ts)) * 1000 AS t,
      max(ranges_underreplicated) AS m0, max(ranges_unavailable) AS m1, avg(replicas_leaseholders) AS m2
    FROM node_status WHERE ${window} GROUP BY node_id, t ORDER BY node_id, t`;
  const rawCgroup = `SELECT host, cgroup, toUnixTimestamp(toStartOfHour(ts)) * 1000 AS t, max(node_id) AS node_id,
      toUnixTimestamp64Milli(max(ts)) AS read_t, max(cpu_usage_usec) AS cu, max(cpu_nr_periods) AS np,
      max(cpu_nr_throttled) AS nt, max(cpu_throttled_usec) AS tu, argMax(cpu_quota_usec, ts) AS quota,
      argMax(cpu_period_usec, ts) AS period, max(mem_current) AS mem, argMax(mem_max, ts) AS mem_max,
      max(arraySum(io_rbytes)) AS rb, max(arraySum(io_wbytes)) AS wb, max(arraySum(io_rios)) AS ri,
      max(arraySum(io_wios)) AS wi
    FROM cgroup_usage WHERE ${window} GROUP BY host, cgroup, t ORDER BY host, cgroup, t`;
  const rawRows = async (query: string) =>
    (await ch.client.query({ query, query_params: params, format: 'JSONEachRow' })).json();
  const rawIter = Math.max(5, Math.floor(ITER / 3));
  const raw = await time(rawIter, () => Promise.all([rawRows(rawNode), rawRows(rawCgroup)]));
  await ch.close();

  console.log(
    JSON.stringify({
      node_status_rows: meta.nodeStatusRows,
      cgroup_rows: meta.cgroupRows,
      nodes: meta.nodes,
      days: meta.days,
      iterations: ITER,
      overview_p50_ms: r1(pct(overview, 50)),
      overview_p95_ms: r1(pct(overview, 95)),
      chart24h_p50_ms: r1(pct(chart24h, 50)),
      chart24h_p95_ms: r1(pct(chart24h, 95)),
      chart30d_resolution: sample.resolution,
      chart30d_step_ms: sample.step_ms,
      chart30d_p50_ms: r1(pct(chart30d, 50)),
      chart30d_p95_ms: r1(pct(chart30d, 95)),
      chart30d_tuples_p50_ms: r1(pct(chart30dTuples, 50)),
      chart30d_tuples_p95_ms: r1(pct(chart30dTuples, 95)),
      chart30d_cached_p50_ms: r1(pct(chart30dCached, 50)),
      chart30d_cached_p95_ms: r1(pct(chart30dCached, 95)),
      chart30d_rollup_query_p50_ms: r1(pct(rollupQueries, 50)),
      chart30d_rollup_query_p95_ms: r1(pct(rollupQueries, 95)),
      chart30d_raw_p50_ms: r1(pct(raw, 50)),
      chart30d_raw_p95_ms: r1(pct(raw, 95)),
      rollup_speedup: r1(pct(raw, 50) / pct(rollupQueries, 50)),
      rollup_speedup_vs_service: r1(pct(raw, 50) / pct(chart30d, 50)),
    }),
  );
}

main().catch((err: Error) => {
  console.error(`bench-query: ${err.message}`);
  process.exit(1);
});
