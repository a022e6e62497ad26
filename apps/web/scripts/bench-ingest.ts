/**
 * `npm run bench:ingest`: ingest throughput through the API vs a direct insert.
 *
 * 1. Starts its own app (launcher, temp DATA_DIR, free loopback port, embedded databases, DEMO=0) from
 *    the production build (`vite build` first), creates an ingest token with the admin CLI.
 * 2. API: realistic node_status + cgroup_usage batches (BENCH_BATCH samples each), pre-gzipped, posted by
 *    BENCH_CLIENTS concurrent clients (default 16: a fleet of agents, each waiting for its 202, which
 *    comes only after ClickHouse confirmed) until BENCH_ROWS rows or BENCH_SECONDS elapsed. The app
 *    coalesces concurrent batches into one insert per table, so throughput grows with concurrency.
 * 3. Direct: the same rows with `client.insert({ format: 'JSONEachRow', values })` into a separate chDB
 *    (its own temp dir, same migrations) in this process, one insert per batch.
 * 4. The same two paths with metrics-heavy batches: `metric` samples as the agent's prometheus input
 *    sends them (one node's /_status/vars scrape after the default allowlist: counters, gauges with a
 *    store label and the sql_service_latency histogram buckets).
 * Prints one JSON line {"api_rows_per_s","direct_rows_per_s","ratio","api_metric_rows_per_s",
 * "direct_metric_rows_per_s","metric_ratio"} and stops the app.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { TCgroupUsageSample, TMetricSample, TNodeStatusSample, TSample } from '@clusterscope/schema';
import { formatTs } from '@clusterscope/tsdb';
import { openTempClickHouse } from '@clusterscope/tsdb/testing';
import { appEnv, freePort, runScript, startApp } from './lib/app';
import { postIngest } from './lib/http';
import { intEnv } from './lib/env';

const BATCH = intEnv('BENCH_BATCH', 2500);
const ROWS = intEnv('BENCH_ROWS', 300_000);
const CLIENTS = intEnv('BENCH_CLIENTS', 16);
const SECONDS = intEnv('BENCH_SECONDS', 30);
const log = (m: string) => console.error(`bench-ingest: ${m}`);

const T0 = Date.now() - 3_600_000;

function nodeStatus(i: number): TNodeStatusSample {
  const node = (i % 50) + 1;
  return {
    kind: 'node_status',
    ts: T0 + Math.floor(i / 50) * 10,
    node_id: node,
    address: `10.0.${node >> 8}.${node & 255}:26257`,
    sql_address: `10.0.${node >> 8}.${node & 255}:26257`,
    locality: `region=us-east1,zone=us-east1-${'bcd'[node % 3]}`,
    build: 'v23.1.11',
    started_at: T0 - 86_400_000,
    updated_at: T0 + i,
    liveness: 'LIVE',
    is_live: true,
    is_available: true,
    is_draining: false,
    membership: 'active',
    replicas: 1200 + (i % 97),
    replicas_leaders: 400 + (i % 13),
    replicas_leaseholders: 399 + (i % 13),
    ranges: 1200 + (i % 97),
    ranges_unavailable: 0,
    ranges_underreplicated: i % 500 === 0 ? 3 : 0,
    live_bytes: 123_456_789 + i,
    key_bytes: 12_345_678,
    value_bytes: 98_765_432,
    intent_bytes: 1024,
    system_bytes: 54_321,
    capacity: 500_000_000_000,
    capacity_available: 300_000_000_000 - i,
    capacity_used: 200_000_000_000 + i,
    uptime_s: 86_400 + i / 50,
  };
}

function cgroupUsage(i: number): TCgroupUsageSample {
  const node = (i % 50) + 1;
  return {
    kind: 'cgroup_usage',
    ts: T0 + Math.floor(i / 50) * 10,
    host: `db-${node}`,
    node_id: node,
    cgroup: '/system.slice/cockroach.service',
    version: 2,
    cpu_usage_usec: 1_000_000 * i,
    cpu_nr_periods: 10 * i,
    cpu_nr_throttled: i % 7,
    cpu_throttled_usec: (i % 7) * 1000,
    cpu_quota_usec: 400_000,
    cpu_period_usec: 100_000,
    cpu_weight: 100,
    cpu_shares: null,
    mem_current: 8_000_000_000 + i,
    mem_max: 16_000_000_000,
    mem_swap_current: 0,
    mem_swap_max: 0,
    mem_anon: 6_000_000_000,
    mem_file: 2_000_000_000,
    io: [
      {
        device: '259:0',
        rbytes: 1e9 + i,
        wbytes: 2e9 + i,
        rios: 1e5 + i,
        wios: 2e5 + i,
        rbps_max: null,
        wbps_max: null,
        riops_max: null,
        wiops_max: null,
      },
    ],
    psi: {
      cpu_some_avg10: 1.5,
      cpu_some_total: 1000 + i,
      memory_some_avg10: 0,
      memory_full_avg10: 0,
      memory_full_total: 10,
      io_some_avg10: 0.3,
      io_full_avg10: 0.1,
      io_full_total: 500 + i,
    },
  };
}

/** The series of one node's scrape: [name, type, labels]. */
const LE = ['500000', '1e+06', '2e+06', '4e+06', '8e+06', '1.6e+07', '3.2e+07', '6.4e+07', '+Inf'];
const SCRAPE: [string, TMetricSample['type'], Record<string, string>][] = [
  ...['select', 'insert', 'update', 'delete', 'misc', 'ddl'].map(
    (k): [string, TMetricSample['type'], Record<string, string>] => [`sql_${k}_count`, 'counter', {}],
  ),
  ['sql_txn_commit_count', 'counter', {}],
  ['sql_txn_abort_count', 'counter', {}],
  ['sql_conns', 'gauge', {}],
  ['sys_rss', 'gauge', {}],
  ['sys_cpu_combined_percent_normalized', 'gauge', {}],
  ...[
    'capacity',
    'capacity_used',
    'capacity_available',
    'livebytes',
    'replicas',
    'replicas_leaseholders',
  ].map((n): [string, TMetricSample['type'], Record<string, string>] => [n, 'gauge', { store: '1' }]),
  ...LE.map((le): [string, TMetricSample['type'], Record<string, string>] => [
    'sql_service_latency_bucket',
    'histogram',
    { le },
  ]),
  ['sql_service_latency_sum', 'histogram', {}],
  ['sql_service_latency_count', 'histogram', {}],
];

function metric(i: number): TMetricSample {
  const scrape = Math.floor(i / SCRAPE.length);
  const node = (scrape % 50) + 1;
  const [name, type, labels] = SCRAPE[i % SCRAPE.length];
  return {
    kind: 'metric',
    ts: T0 + Math.floor(scrape / 50) * 10_000,
    node_id: node,
    host: `db-${node}`,
    name,
    type,
    labels: { node_id: String(node), ...labels },
    value: type === 'gauge' ? 1000 + (i % 977) : 10 * scrape + (i % SCRAPE.length),
  };
}

const makeMetricBatch = (b: number): TSample[] =>
  Array.from({ length: BATCH }, (_, k) => metric(b * BATCH + k));

/** Half node_status, half cgroup_usage. */
function makeBatch(b: number): TSample[] {
  return Array.from({ length: BATCH }, (_, k) => {
    const i = b * BATCH + k;
    return k % 2 === 0 ? nodeStatus(i) : cgroupUsage(i);
  });
}

async function benchApi(base: string, token: string, bodies: Buffer<ArrayBuffer>[]): Promise<number> {
  let next = 0;
  let rows = 0;
  const until = Date.now() + SECONDS * 1000;
  const t0 = performance.now();
  const client = async () => {
    while (next < bodies.length && Date.now() < until) {
      const body = bodies[next++];
      // Not `rows += await …`: that reads `rows` before the await, so concurrent clients overwrote each
      // other's counts (40 batches of 2,500 counted as 7,500 rows).
      const accepted = await postIngest(base, token, body);
      rows += accepted;
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return rows / ((performance.now() - t0) / 1000);
}

const orgId = 'bench-org';
const clusterId = 'bench-cluster';

function toRow(s: TSample): [string, Record<string, unknown>] {
  if (s.kind === 'node_status') {
    const { kind: _k, ts, started_at, updated_at, ...rest } = s;
    return [
      'node_status',
      {
        org_id: orgId,
        cluster_id: clusterId,
        ...rest,
        ts: formatTs(ts),
        started_at: started_at == null ? null : formatTs(started_at),
        updated_at: updated_at == null ? null : formatTs(updated_at),
      },
    ];
  }
  if (s.kind === 'cgroup_usage') {
    const { kind: _k, ts, io, psi, node_id, ...rest } = s;
    return [
      'cgroup_usage',
      {
        org_id: orgId,
        cluster_id: clusterId,
        ...rest,
        node_id: node_id ?? 0,
        ts: formatTs(ts),
        io_device: io.map((d) => d.device),
        io_rbytes: io.map((d) => d.rbytes),
        io_wbytes: io.map((d) => d.wbytes),
        io_rios: io.map((d) => d.rios),
        io_wios: io.map((d) => d.wios),
        io_rbps_max: io.map((d) => d.rbps_max),
        io_wbps_max: io.map((d) => d.wbps_max),
        io_riops_max: io.map((d) => d.riops_max),
        io_wiops_max: io.map((d) => d.wiops_max),
        ...Object.fromEntries(Object.entries(psi ?? {}).map(([k, v]) => [`psi_${k}`, v])),
      },
    ];
  }
  if (s.kind === 'metric') {
    const { kind: _k, ts, node_id, ...rest } = s;
    return [
      'metrics',
      { org_id: orgId, cluster_id: clusterId, ...rest, node_id: node_id ?? 0, ts: formatTs(ts) },
    ];
  }
  throw new Error(`bench generates no ${s.kind}`);
}

async function benchDirect(batches: TSample[][]): Promise<number> {
  const tmp = await openTempClickHouse();
  try {
    let rows = 0;
    const t0 = performance.now();
    for (const batch of batches) {
      const byTable = new Map<string, Record<string, unknown>[]>();
      for (const s of batch) {
        const [table, row] = toRow(s);
        let list = byTable.get(table);
        if (!list) byTable.set(table, (list = []));
        list.push(row);
      }
      for (const [table, values] of byTable)
        await tmp.ch.client.insert({ table, format: 'JSONEachRow', values });
      rows += batch.length;
    }
    return rows / ((performance.now() - t0) / 1000);
  } finally {
    await tmp.cleanup();
  }
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cs-bench-ingest-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = appEnv(dataDir, port, { INGEST_RATE_PER_S: '100000' });
  log(`starting the app on ${base} (data in ${dataDir})`);
  let app: Awaited<ReturnType<typeof startApp>> | null = null;
  const stop = async () => {
    await app?.stop();
    app = null;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    app = await startApp(env);
    const out = await runScript(
      ['scripts/admin.ts', 'token', 'create', '--org', 'demo', '--name', 'bench', '--scopes', 'ingest,admin'],
      env,
    );
    const token = out.trim().split('\n').pop() ?? '';
    const c = await fetch(`${base}/api/v1/clusters`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    if (!c.ok) throw new Error(`creating the cluster failed: ${c.status} ${await c.text()}`);

    const n = Math.ceil(ROWS / BATCH);
    log(`generating ${n} batches × ${BATCH} samples (mixed) and as many metric batches`);
    const batches = Array.from({ length: n }, (_, b) => makeBatch(b));
    const metricBatches = Array.from({ length: n }, (_, b) => makeMetricBatch(b));
    const gz = (samples: TSample[], id: string) =>
      gzipSync(JSON.stringify({ batchId: `${id}-${Date.now()}`, cluster: 'bench', samples }));
    const bodies = batches.map((samples, b) => gz(samples, `bench-${b}`));
    const metricBodies = metricBatches.map((samples, b) => gz(samples, `bench-m-${b}`));
    // Warm-up (JIT, chDB parts) with batches outside the measured sets.
    await benchApi(base, token, [gz(makeBatch(n), 'warm'), gz(makeMetricBatch(n), 'warm-m')]);
    log(`API: ${CLIENTS} clients`);
    const api = await benchApi(base, token, bodies);
    log(`API: ${Math.round(api)} rows/s`);
    const apiMetrics = await benchApi(base, token, metricBodies);
    log(`API, metrics: ${Math.round(apiMetrics)} rows/s`);
    await stop();
    log('direct: JSONEachRow into a separate chDB');
    const direct = await benchDirect(batches);
    log(`direct: ${Math.round(direct)} rows/s`);
    const directMetrics = await benchDirect(metricBatches);
    log(`direct, metrics: ${Math.round(directMetrics)} rows/s`);
    console.log(
      JSON.stringify({
        api_rows_per_s: Math.round(api),
        direct_rows_per_s: Math.round(direct),
        ratio: Number((api / direct).toFixed(2)),
        api_metric_rows_per_s: Math.round(apiMetrics),
        direct_metric_rows_per_s: Math.round(directMetrics),
        metric_ratio: Number((apiMetrics / directMetrics).toFixed(2)),
        clients: CLIENTS,
        batch: BATCH,
      }),
    );
  } finally {
    await stop();
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    log(err.stack ?? String(err));
    process.exit(1);
  },
);
