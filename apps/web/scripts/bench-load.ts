/**
 * `npm run bench:load`: the read path under live load (issue #16 §2).
 *
 * 1. Starts its own app (launcher, temp DATA_DIR, loopback port BENCH_PORT or a free one, embedded
 *    databases, DEMO=0, live caps raised to fit the viewers), creates BENCH_CLUSTERS clusters and one
 *    cluster-bound ingest token per agent, and backfills BENCH_HISTORY_MIN minutes of 10 s history for
 *    every node through the ingest API. Then restarts the app, so the measured process starts fresh.
 * 2. Idle: times BENCH_IDLE_ROUNDS sequential rounds of the four reads (after one warm-up round):
 *    `GET /api/v1/health/clusters`, `GET /api/v1/clusters/{id}/nodes` (API token), the cluster page data
 *    `/{org}/clusters/{id}/__data.json?range=1h` and the on-call data `/{org}/oncall/__data.json`
 *    (session cookie), and the charts that page fetches after it rendered (`dashboard.chartsView`, 1 h;
 *    builds that have it). Nothing else runs.
 * 3. Loaded: BENCH_VIEWERS SSE viewers on `/api/live` and BENCH_AGENTS agents, each posting a gzip batch
 *    for BENCH_NODES / BENCH_AGENTS nodes (node_status + cgroup_usage per node) every second with its own
 *    token, waiting for the 202 before its next post (a late post goes out at once, as the real agent's
 *    outbox does). The same sequential reads run for BENCH_SECONDS.
 * 4. SSE: the bench LISTENs on the live bus's Postgres channel itself, so every notice the app published
 *    is known; completeness = notices received by viewers / (viewers × notices published) during the
 *    load. Latency = receipt by the viewer − the notice's publish time (same clock).
 * Prints ONE JSON line: per read `<read>_idle_p50_ms`/`_p95_ms`, `<read>_loaded_p50_ms`/`_p95_ms` and
 * `<read>_ratio` (loaded p95 / idle p95); `sse_*`; `ingest_p50_ms`/`ingest_p95_ms` (POST → 202);
 * `web_rss_peak_mb` (sampled every 100 ms while measuring) and `web_rss_loaded_mean_mb` (under load); CPU
 * per read when idle (main thread and other threads: chDB, ingest workers, GC helpers) and the web process's
 * CPU share under load.
 * BENCH_CPU_PROF=<dir> runs the web server with `--cpu-prof` into that dir and prints a self-time summary
 * (GC, chDB client, SSR, tRPC/zod, …) of its main thread to stderr. Loopback only; temp data removed.
 */
import fs from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { buildUrl, readClusterMeta } from '@clusterscope/db/embedded';
import { appEnv, freePort, runScript, startApp } from './lib/app';
import { ok, postIngest, signIn } from './lib/http';
import { intEnv, WEB_NODE_ARGS_DEFAULT } from './lib/env';
import { pct, r1 } from './lib/stats';

const VIEWERS = intEnv('BENCH_VIEWERS', 200, 0);
const AGENTS = intEnv('BENCH_AGENTS', 50, 0);
const NODES = intEnv('BENCH_NODES', 500, 0);
const CLUSTERS = intEnv('BENCH_CLUSTERS', 10, 0);
const SECONDS = intEnv('BENCH_SECONDS', 60, 0);
/** Enough idle samples that their p95 rests on several of the largest, not on one or two outliers. */
const IDLE_ROUNDS = intEnv('BENCH_IDLE_ROUNDS', 100, 0);
const HISTORY_MIN = intEnv('BENCH_HISTORY_MIN', 30, 0);
const PORT = intEnv('BENCH_PORT', 0, 0);
const CPU_PROF = process.env.BENCH_CPU_PROF ?? '';
const ORG = 'demo';
const INTERVAL_S = 10;
const log = (m: string) => console.error(`bench-load: ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- the web server process ------------------------------------------------------------------------

/** Pid of the web server under the launcher (tsx runs the launcher in a child; it spawns build/index.js). */
function webServerPid(launcher: number): number {
  const parent = new Map<number, number>();
  const web: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      if (fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('index.js')) web.push(Number(d));
    } catch {
      /* gone */
    }
  }
  const under = (p: number): boolean => p === launcher || (p > 1 && under(parent.get(p) ?? 0));
  const pid = web.find((p) => under(parent.get(p) ?? 0));
  if (pid === undefined) throw new Error('web server process not found');
  return pid;
}

const TICK_MS = 1000 / 100; // USER_HZ
/** CPU ms of one task (thread) or the whole process: utime + stime. */
function cpuMs(statPath: string): number {
  const s = fs.readFileSync(statPath, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}
const cpu = (pid: number) => ({
  total: cpuMs(`/proc/${pid}/stat`),
  main: cpuMs(`/proc/${pid}/task/${pid}/stat`),
});
/** CPU ms per thread name (`comm`) of a process: where the cores go under load. */
function threadCpu(pid: number): Map<string, number> {
  const by = new Map<string, number>();
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const comm =
        Number(t) === pid
          ? 'main'
          : fs
              .readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8')
              .trim()
              .replace(/[\d/]+$/, '');
      by.set(comm, (by.get(comm) ?? 0) + cpuMs(`/proc/${pid}/task/${t}/stat`));
    } catch {
      /* thread gone */
    }
  }
  return by;
}
/** Machine-wide busy CPU ms (all cores) from /proc/stat. */
function machineBusyMs(): number {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (f.reduce((a, b) => a + b, 0) - f[3] - f[4]) * TICK_MS; // minus idle, iowait
}
/** Resident MB: total, anonymous (heaps, chDB's jemalloc) and file-backed (code: node, libchdb). */
const rssMb = (pid: number) => {
  const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (f: string) => Number(new RegExp(`${f}:\\s+(\\d+) kB`).exec(s)?.[1] ?? 0) / 1024;
  return { total: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') };
};

// ---- set-up ----------------------------------------------------------------------------------------

interface TAgent {
  clusterId: string;
  token: string;
  nodes: number[];
  seq: number;
}

interface TSetup {
  admin: string;
  clusterIds: string[];
  agents: TAgent[];
}

async function setUp(base: string, env: NodeJS.ProcessEnv): Promise<TSetup> {
  const out = await runScript(
    ['scripts/admin.ts', 'token', 'create', '--org', ORG, '--name', 'bench', '--scopes', 'admin,read'],
    env,
  );
  const admin = out.trim().split('\n').pop() ?? '';
  const post = async (url: string, body: unknown) =>
    JSON.parse(
      await ok(
        await fetch(`${base}${url}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
        url,
      ),
    ) as Record<string, unknown>;
  const clusterIds: string[] = [];
  for (let c = 0; c < CLUSTERS; c++)
    clusterIds.push((await post('/api/v1/clusters', { name: `load-${c + 1}` })).id as string);
  // Agents round-robin over clusters; each reports its share of its cluster's nodes.
  const agents: TAgent[] = [];
  const perAgent = Math.max(1, Math.floor(NODES / Math.max(1, AGENTS)));
  const nextNode = new Map<string, number>();
  for (let a = 0; a < AGENTS; a++) {
    const clusterId = clusterIds[a % CLUSTERS];
    const first = nextNode.get(clusterId) ?? 1;
    nextNode.set(clusterId, first + perAgent);
    const res = (await post('/api/trpc/tokens.create', { name: `agent-${a}`, scopes: ['ingest'], clusterId }))
      .result as { data: { token: string } };
    agents.push({
      clusterId,
      token: res.data.token,
      nodes: Array.from({ length: perAgent }, (_, i) => first + i),
      seq: 0,
    });
  }
  return { admin, clusterIds, agents };
}

/** One node_status and one cgroup_usage sample for a node at `ts` (values drift with ts). */
function samplesFor(node: number, ts: number) {
  const k = Math.floor(ts / 1000);
  const host = `load-${node}`;
  return [
    {
      kind: 'node_status', ts, node_id: node, address: `10.1.${node >> 8}.${node & 255}:26257`,
      locality: `region=us-east1,zone=us-east1-${'bcd'[node % 3]}`, build: 'v24.1.0', started_at: ts - 86_400_000,
      updated_at: ts, liveness: 'LIVE', is_live: true, is_available: true, is_draining: false, membership: 'active',
      replicas: 1200 + (k % 97), replicas_leaders: 400 + (k % 13), replicas_leaseholders: 399 + (k % 13),
      ranges: 1200 + (k % 97), ranges_unavailable: 0, ranges_underreplicated: k % 300 === 0 ? 2 : 0,
      live_bytes: 123_456_789 + k, key_bytes: 12_345_678, value_bytes: 98_765_432, intent_bytes: 1024,
      system_bytes: 54_321, capacity: 500e9, capacity_available: 300e9 - k, capacity_used: 200e9 + k,
      uptime_s: 86_400 + k,
    },
    {
      kind: 'cgroup_usage', ts, host, node_id: node, cgroup: '/system.slice/cockroach.service', version: 2,
      cpu_usage_usec: k * 1_500_000 + node, cpu_nr_periods: k * 10, cpu_nr_throttled: k % 7,
      cpu_throttled_usec: (k % 7) * 1000, cpu_quota_usec: 400_000, cpu_period_usec: 100_000, cpu_weight: 100,
      mem_current: 8e9 + (k % 1000) * 1e6, mem_max: 16e9, mem_anon: 6e9, mem_file: 2e9,
      io: [{ device: '259:0', rbytes: k * 1e6, wbytes: k * 2e6, rios: k * 100, wios: k * 200 }],
    },
  ]; // prettier-ignore
}

const ingestBody = (a: TAgent, batchId: string, tss: number[]) =>
  gzipSync(
    JSON.stringify({
      batchId,
      cluster: a.clusterId,
      samples: tss.flatMap((ts) => a.nodes.flatMap((n) => samplesFor(n, ts))),
    }),
  );

/** BENCH_HISTORY_MIN minutes of 10 s history for every node (oldest first), one agent at a time. */
async function backfill(base: string, agents: TAgent[]) {
  const now = Date.now();
  const ticks = Math.floor((HISTORY_MIN * 60) / INTERVAL_S);
  const tss = Array.from({ length: ticks }, (_, i) => now - (ticks - i) * INTERVAL_S * 1000);
  const CHUNK = 60;
  await Promise.all(
    [0, 1, 2, 3].map(async (w) => {
      for (let a = w; a < agents.length; a += 4)
        for (let i = 0; i < tss.length; i += CHUNK)
          await postIngest(
            base,
            agents[a].token,
            ingestBody(agents[a], `hist-${a}-${i}`, tss.slice(i, i + CHUNK)),
          );
    }),
  );
}

// ---- the measured parts ----------------------------------------------------------------------------

interface TRead {
  name: string;
  /** A function: the URL changes with every request (a window up to now). */
  url: string | (() => string);
  headers: Record<string, string>;
}

const urlOf = (r: TRead) => (typeof r.url === 'string' ? r.url : r.url());

async function timeRead(base: string, r: TRead): Promise<number> {
  const t = performance.now();
  const url = urlOf(r);
  const res = await fetch(`${base}${url}`, { headers: r.headers });
  await ok(res, url);
  return performance.now() - t;
}

/** Sequential rounds of every read until `until()` says stop; latencies per read. */
async function readLoop(base: string, reads: TRead[], until: (round: number) => boolean) {
  const out = new Map<string, number[]>(reads.map((r) => [r.name, []]));
  for (let round = 0; !until(round); round++)
    for (const r of reads) out.get(r.name)!.push(await timeRead(base, r));
  return out;
}

interface TNotice {
  topic?: string;
  clusterId?: string | null;
  runId?: string | null;
  ts: number;
}
const noticeKey = (topic: string, n: TNotice) => `${topic}|${n.clusterId ?? ''}|${n.runId ?? ''}|${n.ts}`;

interface TViewer {
  received: Map<string, number>; // notice key → receipt time
  ready: Promise<void>;
  close(): void;
}

/** One SSE viewer on /api/live over node:http (one connection each, like a browser tab). */
function openViewer(port: number, cookie: string): TViewer {
  const received = new Map<string, number>();
  let req: http.ClientRequest | null = null;
  const ready = new Promise<void>((resolve, reject) => {
    req = http.get(
      {
        host: '127.0.0.1',
        port,
        path: `/api/live?org=${ORG}`,
        headers: { cookie, accept: 'text/event-stream' },
      },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`/api/live answered ${res.statusCode}`));
          res.resume();
          return;
        }
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (chunk: string) => {
          const at = Date.now();
          buf += chunk;
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const msg = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const ev = /^event: (.+)$/m.exec(msg)?.[1];
            const data = /^data: (.+)$/m.exec(msg)?.[1];
            if (ev === 'ready') resolve();
            else if (ev && data) received.set(noticeKey(ev, JSON.parse(data) as TNotice), at);
          }
        });
        res.on('error', () => undefined);
      },
    );
    req.on('error', reject);
  });
  return { received, ready, close: () => req?.destroy() };
}

/** Agents posting every second until `stop`; returns POST → 202 latencies. */
function runAgents(base: string, agents: TAgent[]) {
  let stopped = false;
  const lat: number[] = [];
  let failures = 0;
  const loops = agents.map(async (a, i) => {
    await sleep((i * 1000) / agents.length); // spread like independent hosts
    let next = Date.now();
    while (!stopped) {
      const body = ingestBody(a, `load-${i}-${a.seq++}`, [Date.now()]);
      const t = performance.now();
      try {
        await postIngest(base, a.token, body);
        lat.push(performance.now() - t);
      } catch {
        failures++;
      }
      next += 1000;
      await sleep(Math.max(0, next - Date.now()));
    }
  });
  return {
    lat,
    failures: () => failures,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** Self-time summary of a .cpuprofile by category. */
function summariseProfile(file: string) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
  const cats = new Map<string, number>();
  const fns = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    const f = byId.get(id)!;
    const u = f.url;
    const cat =
      f.functionName === '(idle)'
        ? 'idle'
        : f.functionName === '(garbage collector)'
          ? 'gc'
          : f.functionName === '(program)'
            ? 'program (native)'
            : /chdb|@clickhouse/.test(u)
              ? 'clickhouse client / chdb'
              : /svelte\/src\/internal\/server|\/entries\/pages\/|\/nodes\/\d|chunks\/.*render/.test(u)
                ? 'ssr (svelte)'
                : /zod/.test(u)
                  ? 'zod'
                  : /@trpc|trpc-to-openapi/.test(u)
                    ? 'trpc'
                    : /better-auth|better-call|@better-auth|kysely/.test(u)
                      ? 'better-auth'
                      : /@prisma|\/pg\/|pg-protocol|\/generated\//.test(u)
                        ? 'prisma / pg'
                        : /undici|node:|^$/.test(u)
                          ? 'node / http'
                          : /build\/server/.test(u)
                            ? 'app (bundle)'
                            : 'other';
    cats.set(cat, (cats.get(cat) ?? 0) + dt);
    if (cat !== 'idle') {
      const k = `${f.functionName || '(anon)'} ${u.split('/').slice(-2).join('/')}:${f.lineNumber}`;
      fns.set(k, (fns.get(k) ?? 0) + dt);
    }
    total += dt;
  });
  const busy = total - (cats.get('idle') ?? 0);
  log(`profile ${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy`);
  for (const [k, v] of [...cats].sort((a, b) => b[1] - a[1]))
    log(
      `  ${k.padEnd(28)} ${(v / 1e3).toFixed(0).padStart(7)} ms  ${((100 * v) / busy).toFixed(1)} % of busy`,
    );
  log('  top self-time functions:');
  for (const [k, v] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, 25))
    log(`    ${(v / 1e3).toFixed(0).padStart(6)} ms  ${k}`);
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(tmpdir(), 'cs-bench-load-'));
  const port = PORT || (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const live = String(Math.max(VIEWERS + 10, 500));
  const env = appEnv(dataDir, port, {
    LIVE_MAX_PER_USER: live,
    LIVE_MAX_PER_ORG: live,
    PG_PORT: String(await freePort()),
  });
  let app: Awaited<ReturnType<typeof startApp>> | null = null;
  let listener: pg.Client | null = null;
  const viewers: TViewer[] = [];
  try {
    log(`starting the app on ${base} (data in ${dataDir})`);
    app = await startApp(env);
    const s = await setUp(base, env);
    const t0 = Date.now();
    await backfill(base, s.agents);
    log(`backfilled ${HISTORY_MIN} min × ${NODES} nodes in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await app.stop();

    if (CPU_PROF) fs.mkdirSync(CPU_PROF, { recursive: true });
    const runEnv = CPU_PROF
      ? {
          ...env,
          WEB_NODE_ARGS: `${env.WEB_NODE_ARGS ?? WEB_NODE_ARGS_DEFAULT} --cpu-prof --cpu-prof-dir=${path.resolve(CPU_PROF)}`,
        }
      : env;
    app = await startApp(runEnv);
    const pid = webServerPid(app.app.pid!);
    const cookie = await signIn(base, dataDir);
    const bearer = { authorization: `Bearer ${s.admin}` };
    const cid = s.clusterIds[0];
    const reads: TRead[] = [
      { name: 'health_clusters', url: '/api/v1/health/clusters', headers: bearer },
      { name: 'cluster_nodes', url: `/api/v1/clusters/${cid}/nodes`, headers: bearer },
      { name: 'cluster_page', url: `/${ORG}/clusters/${cid}/__data.json?range=1h`, headers: { cookie } },
      { name: 'oncall', url: `/${ORG}/oncall/__data.json`, headers: { cookie } },
    ];
    // The charts the cluster page fetches after it rendered (builds with dashboard.chartsView): the last
    // hour up to each request's now, as a live page asks.
    const charts: TRead = {
      name: 'cluster_charts',
      url: () => {
        const t1 = Date.now();
        return `/api/trpc/dashboard.chartsView?input=${encodeURIComponent(JSON.stringify({ id: cid, from: t1 - 3_600_000, to: t1 }))}`;
      },
      headers: { cookie, 'x-org': ORG },
    };
    if ((await fetch(`${base}${urlOf(charts)}`, { headers: charts.headers })).ok) reads.push(charts);
    else log('cluster_charts: not served by this build');
    let rssPeak = { total: 0, anon: 0, file: 0 };
    /** Samples while the agents post (the mean moves less between runs than the peak). */
    const rssLoaded: number[] = [];
    let underLoad = false;
    const rssTimer = setInterval(() => {
      try {
        const r = rssMb(pid);
        if (underLoad) rssLoaded.push(r.total);
        if (r.total > rssPeak.total) rssPeak = r;
      } catch {
        /* exited */
      }
    }, 100);

    // Idle.
    await readLoop(base, reads, (r) => r >= 1);
    const c0 = cpu(pid);
    const idle = await readLoop(base, reads, (r) => r >= IDLE_ROUNDS);
    const c1 = cpu(pid);
    const idleReads = IDLE_ROUNDS * reads.length;
    log(`idle: ${idleReads} reads`);

    // Loaded.
    const meta = await readClusterMeta(path.join(dataDir, 'postgres'));
    if (!meta) throw new Error('no embedded Postgres metadata');
    listener = new pg.Client({ connectionString: buildUrl(meta, 'clusterscope') });
    // The app's Postgres stops with the app (BENCH_CPU_PROF stops it before this client ends).
    listener.on('error', (err) => log(`listener: ${err.message}`));
    await listener.connect();
    let counting = false;
    const published = new Map<string, number>(); // key → publish time
    listener.on('notification', (m: pg.Notification) => {
      if (!counting || !m.payload) return;
      const e = JSON.parse(m.payload) as TNotice & { topic: string };
      published.set(noticeKey(e.topic, e), e.ts);
    });
    await listener.query('LISTEN clusterscope_live');
    for (let v = 0; v < VIEWERS; v++) viewers.push(openViewer(port, cookie));
    await Promise.all(viewers.map((v) => v.ready));
    log(`${VIEWERS} viewers connected; ${AGENTS} agents start`);
    counting = true;
    const agents = runAgents(base, s.agents);
    const l0 = Date.now();
    const c2 = cpu(pid);
    const t2 = threadCpu(pid);
    const m2 = machineBusyMs();
    underLoad = true;
    const loaded = await readLoop(base, reads, () => Date.now() - l0 >= SECONDS * 1000);
    underLoad = false;
    const c3 = cpu(pid);
    const t3 = threadCpu(pid);
    const m3 = machineBusyMs();
    const loadedMs = Date.now() - l0;
    await agents.stop();
    await sleep(1500); // the last throttled notices
    counting = false;
    clearInterval(rssTimer);

    // SSE: every published notice at every viewer.
    let got = 0;
    let complete = 0;
    const lat: number[] = [];
    for (const v of viewers) {
      let mine = 0;
      for (const [key, ts] of published) {
        const at = v.received.get(key);
        if (at !== undefined) {
          mine++;
          lat.push(at - ts);
        }
      }
      got += mine;
      if (mine === published.size) complete++;
    }

    const result: Record<string, number | string | boolean> = {
      viewers: VIEWERS,
      agents: AGENTS,
      nodes: NODES,
      clusters: CLUSTERS,
      seconds: SECONDS,
      history_min: HISTORY_MIN,
    };
    let worst = 0;
    for (const r of reads) {
      const i95 = pct(idle.get(r.name)!, 95);
      const l95 = pct(loaded.get(r.name)!, 95);
      result[`${r.name}_idle_p50_ms`] = r1(pct(idle.get(r.name)!, 50));
      result[`${r.name}_idle_p95_ms`] = r1(i95);
      result[`${r.name}_loaded_p50_ms`] = r1(pct(loaded.get(r.name)!, 50));
      result[`${r.name}_loaded_p95_ms`] = r1(l95);
      result[`${r.name}_ratio`] = Math.round((l95 / i95) * 100) / 100;
      result[`${r.name}_loaded_n`] = loaded.get(r.name)!.length;
      worst = Math.max(worst, l95 / i95);
    }
    result.worst_ratio = Math.round(worst * 100) / 100;
    result.sse_published = published.size;
    result.sse_completeness = published.size ? Math.round((got / (published.size * VIEWERS)) * 1e4) / 1e4 : 0;
    result.sse_viewers_complete = complete;
    result.sse_p50_ms = r1(pct(lat, 50));
    result.sse_p95_ms = r1(pct(lat, 95));
    result.ingest_posts = agents.lat.length;
    result.ingest_failures = agents.failures();
    result.ingest_p50_ms = r1(pct(agents.lat, 50));
    result.ingest_p95_ms = r1(pct(agents.lat, 95));
    result.web_rss_peak_mb = Math.round(rssPeak.total);
    result.web_rss_peak_anon_mb = Math.round(rssPeak.anon);
    result.web_rss_peak_file_mb = Math.round(rssPeak.file);
    result.web_rss_loaded_mean_mb = Math.round(
      rssLoaded.reduce((a, b) => a + b, 0) / Math.max(1, rssLoaded.length),
    );
    result.idle_cpu_ms_per_read = r1((c1.total - c0.total) / idleReads);
    result.idle_cpu_main_ms_per_read = r1((c1.main - c0.main) / idleReads);
    result.loaded_web_cpu_pct = Math.round((100 * (c3.total - c2.total)) / loadedMs);
    result.loaded_web_cpu_main_pct = Math.round((100 * (c3.main - c2.main)) / loadedMs);
    result.loaded_machine_cpu_pct = Math.round((100 * (m3 - m2)) / loadedMs);
    // Per thread name, % of one core, largest first (chDB pools, ingest workers, alerting thread, GC…).
    result.loaded_threads_pct = [...t3]
      .map(([n, ms]) => [n, Math.round((100 * (ms - (t2.get(n) ?? 0))) / loadedMs)] as const)
      .filter(([, p]) => p >= 1)
      .sort((a, b) => b[1] - a[1])
      .map(([n, p]) => `${n}:${p}`)
      .join(' ');
    console.log(JSON.stringify(result));

    if (CPU_PROF) {
      for (const v of viewers) v.close();
      viewers.length = 0;
      await listener.end().catch(() => undefined);
      listener = null;
      await app.stop();
      app = null;
      const mine = fs
        .readdirSync(CPU_PROF)
        .filter((f) => f.includes(`.${pid}.`) && f.endsWith('.cpuprofile'));
      if (!mine.length) log(`no profile of pid ${pid} in ${CPU_PROF}`);
      for (const f of mine) summariseProfile(path.join(CPU_PROF, f));
    }
  } finally {
    for (const v of viewers) v.close();
    await listener?.end().catch(() => undefined);
    await app?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    log(err.stack ?? String(err));
    process.exit(1);
  },
);
