import type {
  TCgroupUsageSample,
  TLiveness,
  TMetricSample,
  TNodeStatusSample,
  TSample,
} from '@clusterscope/schema';
import { createCluster, findClusterByName, findOrgBySlug } from '@clusterscope/db';
import { getLatestNodes, type TWriter } from '@clusterscope/tsdb';
import type { TDeps } from '../core/deps';
import { DEMO_ORG } from './seed';

export const DEMO_CLUSTER = {
  name: 'demo-cockroach',
  description: 'Built-in simulated 5-node CockroachDB cluster (DEMO=1)',
  intervalS: 10,
} as const;
export const DEMO_NODES = 5;

const GiB = 1024 ** 3;
/** Counters count from this instant so they stay far below 2^53. */
const EPOCH_S = 1_700_000_000;
/** Simulated cluster start (nodes that never restart report uptime since then). */
const STARTED_S = 1_767_225_600;
/** Node 3 drains, is shut down and restarts every 2 h. */
export const DRAIN_NODE = 3;
const DRAIN_PERIOD_S = 7200;
const DRAIN_AT_S = 3600;
const DRAIN_FOR_S = 300;
const DEAD_FOR_S = 300;
/** Node 5's liveness flaps (UNAVAILABLE for two samples) every 3 h. */
export const FLAP_NODE = 5;
const FLAP_PERIOD_S = 10_800;
const FLAP_AT_S = 5400;
const FLAP_FOR_S = 20;

const TOTAL_RANGES = 1200;
const REPLICAS_PER_NODE = (TOTAL_RANGES * 3) / DEMO_NODES;

function mod(a: number, n: number) {
  return ((a % n) + n) % n;
}

/** Liveness of a simulated node at second `s` (pure). */
export function demoLiveness(node: number, s: number): TLiveness {
  if (node === DRAIN_NODE) {
    const p = mod(s, DRAIN_PERIOD_S) - DRAIN_AT_S;
    if (p >= 0 && p < DRAIN_FOR_S) return 'DRAINING';
    if (p >= DRAIN_FOR_S && p < DRAIN_FOR_S + DEAD_FOR_S) return 'DEAD';
  }
  if (node === FLAP_NODE) {
    const p = mod(s, FLAP_PERIOD_S) - FLAP_AT_S;
    if (p >= 0 && p < FLAP_FOR_S) return 'UNAVAILABLE';
  }
  return 'LIVE';
}

/** Share of its leases node 3 still holds while it drains (1 → 0), 0 while dead. */
function drainShare(s: number): number {
  const p = mod(s, DRAIN_PERIOD_S) - DRAIN_AT_S;
  if (p < 0 || p >= DRAIN_FOR_S + DEAD_FOR_S) return 1;
  if (p >= DRAIN_FOR_S) return 0;
  return 1 - p / DRAIN_FOR_S;
}

/** Smooth load curve in [0, 1] with a daily cycle and a faster wobble per node. */
function load(node: number, s: number): number {
  const day = Math.sin((2 * Math.PI * s) / 86_400 - node);
  const fast = Math.sin((2 * Math.PI * s) / 900 + node * 1.7);
  return 0.5 + 0.35 * day + 0.15 * fast;
}

/** Integral of `load` from EPOCH_S to s (closed form), so counters are monotonic and rates match load. */
function loadIntegral(node: number, s: number): number {
  const t = s - EPOCH_S;
  const w1 = (2 * Math.PI) / 86_400;
  const w2 = (2 * Math.PI) / 900;
  const i1 = (-Math.cos(w1 * s - node) + Math.cos(w1 * EPOCH_S - node)) / w1;
  const i2 = (-Math.cos(w2 * s + node * 1.7) + Math.cos(w2 * EPOCH_S + node * 1.7)) / w2;
  return 0.5 * t + 0.35 * i1 + 0.15 * i2;
}

/** When a node last started (node 3 restarts after each drain cycle). */
function restartedAt(node: number, s: number): number {
  if (node !== DRAIN_NODE) return STARTED_S;
  const cycle = s - mod(s, DRAIN_PERIOD_S);
  const back = cycle + DRAIN_AT_S + DRAIN_FOR_S + DEAD_FOR_S;
  return s >= back ? back : back - DRAIN_PERIOD_S;
}

/** Node 2 runs hot (throttled against its 4-core limit); node 4 sits near its memory limit. */
const CPU_BASE = [0, 1.2, 2.6, 1.0, 1.1, 0.9];
const CPU_SWING = [0, 1.0, 1.6, 1.0, 0.9, 0.8];

/** Samples of all simulated nodes at time `ms` (pure, deterministic). */
export function simulateDemo(ms: number): TSample[] {
  const s = Math.floor(ms / 1000);
  const out: TSample[] = [];
  const states = Array.from({ length: DEMO_NODES }, (_, i) => demoLiveness(i + 1, s));
  const deadCount = states.filter((l) => l === 'DEAD').length;
  const unavailable = states.filter((l) => l === 'UNAVAILABLE').length;
  const share = drainShare(s);
  const leases = TOTAL_RANGES / DEMO_NODES;
  const freed = leases * (1 - share);
  for (let node = 1; node <= DEMO_NODES; node++) {
    const lv = states[node - 1];
    const started = restartedAt(node, s);
    const leaseholders =
      node === DRAIN_NODE
        ? Math.round(leases * share)
        : Math.round(leases + freed / (DEMO_NODES - 1) + (node - 3) * 3);
    const dead = lv === 'DEAD';
    const grow = (s - STARTED_S) * 2000;
    const sample: TNodeStatusSample = {
      kind: 'node_status',
      ts: ms,
      node_id: node,
      address: `demo-n${node}.internal:26257`,
      sql_address: `demo-n${node}.internal:26257`,
      locality: `region=eu-west-1,zone=eu-west-1${'abc'[node % 3]}`,
      build: 'v24.3.4',
      started_at: started * 1000,
      updated_at: ms,
      liveness: lv,
      is_live: !dead,
      is_available: lv === 'LIVE' || lv === 'DRAINING',
      is_draining: lv === 'DRAINING',
      membership: 'active',
      replicas: dead ? 0 : Math.round(REPLICAS_PER_NODE + (node - 3) * 4),
      replicas_leaders: Math.max(0, leaseholders - 2),
      replicas_leaseholders: dead ? 0 : leaseholders,
      ranges: dead ? 0 : Math.round(REPLICAS_PER_NODE + (node - 3) * 4),
      ranges_unavailable: 0,
      ranges_underreplicated: dead
        ? 0
        : Math.round((deadCount * REPLICAS_PER_NODE + unavailable * 40) / (DEMO_NODES - deadCount)),
      live_bytes: 42 * GiB + node * GiB + grow,
      key_bytes: Math.round(6 * GiB + node * 0.1 * GiB),
      value_bytes: Math.round(36 * GiB + node * 0.9 * GiB + grow),
      intent_bytes: 1_000_000 + ((s * 7919 * node) % 5_000_000),
      system_bytes: 120_000_000,
      capacity: 500 * GiB,
      capacity_used: 60 * GiB + node * GiB + grow,
      capacity_available: 440 * GiB - node * GiB - grow,
      uptime_s: dead ? 0 : s - started,
    };
    out.push(sample);

    const base = CPU_BASE[node];
    const swing = CPU_SWING[node];
    // CPU seconds used since EPOCH_S = base * t + swing * ∫load.
    const cpuS = base * (s - EPOCH_S) + swing * loadIntegral(node, s);
    const periods = (s - EPOCH_S) * 10;
    // Node 2 is throttled hard, node 4 a little; the others never hit their quota.
    const throttleShare = node === 2 ? 0.18 : node === 4 ? 0.03 : 0;
    const memBase = node === 4 ? 7.1 : 4.2 + node * 0.3;
    const io = (perS: number) => Math.round(perS * (s - EPOCH_S) + perS * loadIntegral(node, s));
    const cg: TCgroupUsageSample = {
      kind: 'cgroup_usage',
      ts: ms,
      host: `demo-n${node}`,
      node_id: node,
      cgroup: '/system.slice/cockroach.service',
      version: 2,
      cpu_usage_usec: Math.round(cpuS * 1e6),
      cpu_nr_periods: periods,
      cpu_nr_throttled: Math.round(throttleShare * 10 * (0.6 * (s - EPOCH_S) + 0.4 * loadIntegral(node, s))),
      cpu_throttled_usec: Math.round(periods * throttleShare * 20_000),
      cpu_quota_usec: 400_000,
      cpu_period_usec: 100_000,
      cpu_weight: 100,
      cpu_shares: null,
      mem_current: Math.round((memBase + 0.6 * load(node, s)) * GiB),
      mem_max: 8 * GiB,
      mem_swap_current: 0,
      mem_swap_max: 0,
      mem_anon: Math.round((memBase - 0.8) * GiB),
      mem_file: Math.round(0.8 * GiB),
      io: [
        {
          device: '259:0',
          rbytes: io(6_000_000),
          wbytes: io(14_000_000),
          rios: io(400),
          wios: io(900),
          rbps_max: 250_000_000,
          wbps_max: 250_000_000,
          riops_max: 3000,
          wiops_max: 3000,
        },
      ],
      psi: null,
    };
    out.push(cg);
  }
  return out;
}

/** The demo's Prometheus scrape interval (each node's /_status/vars). */
export const DEMO_SCRAPE_S = 30;
/** Statements per second per node at load 1. */
const DEMO_QPS = 400;
const STATEMENT_MIX = { select: 0.7, insert: 0.15, update: 0.12, delete: 0.03 } as const;
/** sql_service_latency bucket bounds (ns) and the share of fast and slow statements at or under each. */
const LE_NS = [5e5, 1e6, 2e6, 4e6, 8e6, 16e6, 32e6, 64e6];
const FAST_CDF = [0.05, 0.35, 0.8, 0.96, 0.995, 1, 1, 1];
const SLOW_CDF = [0, 0, 0.02, 0.1, 0.35, 0.75, 0.95, 0.99];

/**
 * What the agent's prometheus input would scrape from each live node's /_status/vars at `ms` (pure):
 * counters since the node's last start (node 3 restarts every 2 h, so its counters reset), a latency
 * histogram whose slow share swings over 15 minutes (node 2, the hot one, is slower), and gauges
 * matching the node_status and cgroup samples. A dead node is not scraped.
 */
export function simulateDemoMetrics(ms: number): TMetricSample[] {
  const s = Math.floor(ms / 1000);
  const out: TMetricSample[] = [];
  const w2 = (2 * Math.PI) / 900;
  for (let node = 1; node <= DEMO_NODES; node++) {
    const lv = demoLiveness(node, s);
    if (lv === 'DEAD') continue;
    const host = `demo-n${node}`;
    const nl = { node_id: String(node) };
    const sl = { node_id: String(node), store: String(node) };
    const started = restartedAt(node, s);
    const add = (
      name: string,
      type: TMetricSample['type'],
      value: number,
      labels: Record<string, string> = nl,
    ) => out.push({ kind: 'metric', ts: ms, node_id: node, host, name, type, labels, value });
    // Statements since start: DEMO_QPS × ∫(0.2 + load). Slow ones (the histogram's tail) at
    // DEMO_QPS × (a + b × (1 + sin)/2) per second, a larger on the hot node 2: at most a quarter.
    const a = node === 2 ? 0.03 : 0.008;
    const slowIntegral = (t: number) => a * t + (0.02 * (t - Math.cos(w2 * t + node) / w2)) / 2;
    const stmts = DEMO_QPS * (0.2 * (s - started) + loadIntegral(node, s) - loadIntegral(node, started));
    const slow = DEMO_QPS * (slowIntegral(s) - slowIntegral(started));
    const fast = stmts - slow;
    for (const [kind, share] of Object.entries(STATEMENT_MIX))
      add(`sql_${kind}_count`, 'counter', Math.round(stmts * share));
    const txns = stmts / 3;
    add('sql_txn_commit_count', 'counter', Math.round(txns * (node === 2 ? 0.98 : 0.995)));
    add('sql_txn_abort_count', 'counter', Math.round(txns * (node === 2 ? 0.02 : 0.005)));
    LE_NS.forEach((le, i) =>
      add('sql_service_latency_bucket', 'histogram', Math.round(fast * FAST_CDF[i] + slow * SLOW_CDF[i]), {
        ...nl,
        le: String(le),
      }),
    );
    add('sql_service_latency_bucket', 'histogram', Math.round(fast + slow), { ...nl, le: '+Inf' });
    add('sql_service_latency_count', 'histogram', Math.round(fast + slow));
    add('sql_service_latency_sum', 'histogram', Math.round(fast * 1.6e6 + slow * 14e6));
    const l = load(node, s);
    add('sql_conns', 'gauge', Math.round(20 + 30 * l));
    const grow = (s - STARTED_S) * 2000;
    add('capacity', 'gauge', 500 * GiB, sl);
    add('capacity_used', 'gauge', 60 * GiB + node * GiB + grow, sl);
    add('capacity_available', 'gauge', 440 * GiB - node * GiB - grow, sl);
    add('livebytes', 'gauge', 42 * GiB + node * GiB + grow, sl);
    add(
      'sys_cpu_combined_percent_normalized',
      'gauge',
      Math.min(1, (CPU_BASE[node] + CPU_SWING[node] * l) / 4),
    );
    add('sys_rss', 'gauge', Math.round((3.4 + node * 0.3 + 0.5 * l) * GiB));
    const share = node === DRAIN_NODE ? drainShare(s) : 1;
    add('replicas', 'gauge', Math.round(REPLICAS_PER_NODE + (node - 3) * 4), sl);
    add(
      'replicas_leaseholders',
      'gauge',
      Math.round((TOTAL_RANGES / DEMO_NODES) * share + (node - 3) * 3),
      sl,
    );
  }
  return out;
}

/** How far back the backfill writes metric scrapes (they are ~13× the rows of the rest). */
export const DEMO_METRICS_BACKFILL_MS = 6 * 3_600_000;

/** Node status and cgroup samples at `ms`, plus the metric scrape when `ms` falls on one. */
const demoSamplesAt = (ms: number, metrics = true): TSample[] =>
  metrics && ms % (DEMO_SCRAPE_S * 1000) === 0
    ? [...simulateDemo(ms), ...simulateDemoMetrics(ms)]
    : simulateDemo(ms);

/** Creates the demo cluster in the demo org (once). Returns null when the demo org does not exist. */
export async function ensureDemoCluster(deps: TDeps) {
  const org = await findOrgBySlug(deps.db, DEMO_ORG.slug);
  if (!org) return null;
  const c =
    (await findClusterByName(deps.db, org.id, DEMO_CLUSTER.name)) ??
    (await createCluster(deps.db, org.id, { ...DEMO_CLUSTER, demo: true }));
  return { orgId: org.id, cluster: c };
}

/**
 * Writes simulated history from the newest stored sample (or `now - backfillMs`) up to `now`,
 * one batch per simulated hour with deterministic batch ids (a restart never duplicates rows).
 */
export async function backfillDemo(
  deps: TDeps,
  writer: TWriter,
  target: { orgId: string; clusterId: string; intervalS: number },
  now: number,
  backfillMs = 86_400_000,
): Promise<number> {
  const step = target.intervalS * 1000;
  const latest = await getLatestNodes(deps.ch, target.orgId, target.clusterId);
  const last = latest.reduce((m, n) => Math.max(m, n.ts), 0);
  let t = Math.max(last + step, Math.floor((now - backfillMs) / step) * step);
  let rows = 0;
  // A few hours in flight at once: the writer coalesces concurrent batches into larger inserts.
  let inflight: Promise<unknown>[] = [];
  while (t <= now) {
    const end = Math.min(now, t + 3_600_000 - step);
    const samples: TSample[] = [];
    const first = t;
    for (; t <= end; t += step) samples.push(...demoSamplesAt(t, t > now - DEMO_METRICS_BACKFILL_MS));
    inflight.push(writer.write(target.orgId, target.clusterId, `demo-${target.clusterId}-${first}`, samples));
    rows += samples.length;
    if (inflight.length >= 6) {
      await Promise.all(inflight);
      inflight = [];
    }
  }
  await Promise.all(inflight);
  return rows;
}

/** One live tick: the samples at `ts` (aligned to the interval). */
export async function writeDemoTick(
  writer: TWriter,
  target: { orgId: string; clusterId: string; intervalS: number },
  ts: number,
): Promise<void> {
  const step = target.intervalS * 1000;
  const t = Math.floor(ts / step) * step;
  await writer.write(target.orgId, target.clusterId, `demo-${target.clusterId}-${t}`, demoSamplesAt(t));
}
