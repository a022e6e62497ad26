/**
 * `npm run bench:pages`: server time of each dashboard page's data (`__data.json`), as a browser navigation
 * asks for it (layout + page loads), on a 50-node cluster with 30 days of history.
 *
 * 1. Starts its own app (launcher, temp DATA_DIR, free loopback port, embedded databases, DEMO=0) from the
 *    production build (`vite build` first), creates a cluster and BENCH_RUNS finished pgbench runs of one
 *    workload over the REST API, then stops the app.
 * 2. Loads BENCH_NODES × BENCH_DAYS × 10 s of node_status + cgroup_usage history for that cluster into the
 *    app's chDB directory with bench:query's generator (tsdb `loadBenchData`), and starts the app again.
 * 3. Signs in as the demo admin and times BENCH_ITERATIONS sequential requests per page (after one warm-up):
 *    cluster (1 h, 24 h, 30 d), node (1 h), on-call, clusters list, runs, run, compare (3 runs), workload,
 *    and `charts_*`: the charts the cluster (1 h, 24 h, 30 d) and node (1 h) pages fetch after rendering
 *    (`dashboard.chartsView`; skipped on builds without it), each request for the window up to its own now,
 *    as a live page asks (the series cache then reads only what is newer than what it holds).
 * Prints ONE JSON line: `<page>_p50_ms`/`<page>_p95_ms` per page, `<page>_first_ms` (the warm-up request), `<page>_pg_ms`/`_ch_ms` (median summed
 * PostgreSQL/ClickHouse call time per request; parallel calls overlap) and `_pg_n`/`_ch_n` (calls per
 * request), from the Server-Timing header the app sends with SERVER_TIMING=1, and `cluster_html_kb` (the cluster page's
 * server-rendered HTML, 1 h; `cluster_30d_data_kb` the 30-day page data; `charts_1h_kb` the 1 h charts). Loopback only; the temp
 * directory is removed at the end.
 * BENCH_BUILDS=build-a,build-b (build dirs under apps/web) measures each build in turn on the same data,
 * one JSON line each (before/after comparisons under the same conditions).
 * Cookies are kept as a browser keeps them (Set-Cookie refreshes them). An embedded PostgreSQL that outlives
 * the app is stopped. BENCH_DATA_DIR=<dir> keeps the data there and reuses it on the next run (no setup, no load);
 * BENCH_PAGES=cluster_30d,node times only those pages; BENCH_DUMP=<dir> writes the cluster page's HTML
 * and 30-day data there (to see what the page carries).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrate, openClickHouse } from '@clusterscope/tsdb';
import { loadBenchData } from '@clusterscope/tsdb/testing';
import { appEnv, freePort, runScript, startApp } from './lib/app';
import { REPO_ROOT, intEnv } from './lib/env';
import { ok, signInAnswer } from './lib/http';
import { pct, r1, timeCalls } from './lib/stats';

const NODES = intEnv('BENCH_NODES', 50);
const DAYS = intEnv('BENCH_DAYS', 30);
const ITER = intEnv('BENCH_ITERATIONS', 30);
const RUNS = intEnv('BENCH_RUNS', 8);
const BUILDS = (process.env.BENCH_BUILDS ?? 'build').split(',').filter(Boolean);
const KEEP_DIR = process.env.BENCH_DATA_DIR ?? '';
const ONLY = (process.env.BENCH_PAGES ?? '').split(',').filter(Boolean);
const DUMP = process.env.BENCH_DUMP ?? '';
const ORG = 'demo';
const log = (m: string) => console.error(`bench-pages: ${m}`);

const HOUR = 3_600_000;

/** Session cookies as a browser keeps them: refreshed by every response's Set-Cookie (better-auth's cache). */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  update(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const gone = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || pair.slice(i + 1) === '';
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(i + 1));
    }
  }
  /** GET with the cookies (and any extra headers); keeps what the response sets. */
  async get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    const res = await fetch(url, { headers: { ...headers, cookie: this.header() } });
    this.update(res);
    return res;
  }
}

/** Signs in with the demo admin login the launcher wrote; the jar keeps its cookies like a browser. */
async function signIn(base: string, dataDir: string): Promise<CookieJar> {
  const jar = new CookieJar();
  jar.update(await signInAnswer(base, dataDir));
  return jar;
}

interface TSetup {
  orgId: string;
  clusterId: string;
  runIds: string[];
  workloadId: string;
}

/** Cluster, runs and workload through the public API (first app start). */
async function setUp(base: string, dataDir: string, env: NodeJS.ProcessEnv): Promise<TSetup> {
  const out = await runScript(
    ['scripts/admin.ts', 'token', 'create', '--org', ORG, '--name', 'bench', '--scopes', 'admin,runs:write'],
    env,
  );
  const token = out.trim().split('\n').pop() ?? '';
  const api = async (method: string, url: string, body?: unknown) =>
    JSON.parse(
      await ok(
        await fetch(`${base}/api/v1${url}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
        `${method} ${url}`,
      ),
    ) as Record<string, unknown>;
  const cluster = await api('POST', '/clusters', { name: 'bench' });
  const output = readFileSync(path.join(REPO_ROOT, 'packages/bench/fixtures/pgbench_tpcb.txt'), 'utf8');
  const runIds: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    const run = await api('POST', '/runs', {
      cluster: 'bench',
      workload: 'bench-tpcb',
      tool: 'pgbench',
      git: { repo: 'acme/db', branch: 'main', sha: `sha${i}` },
    });
    const id = run.id as string;
    await api('POST', `/runs/${id}/output`, { output });
    await api('POST', `/runs/${id}/finish`, { status: 'succeeded', exitCode: 0 });
    runIds.push(id);
  }
  const run = await api('GET', `/runs/${runIds[0]}`);
  const jar = await signIn(base, dataDir);
  const current = JSON.parse(
    await ok(await jar.get(`${base}/api/trpc/pages.nav`, { 'x-org': ORG }), 'pages.nav'),
  ) as { result: { data: { org: { id: string } } } };
  return {
    orgId: current.result.data.org.id,
    clusterId: cluster.id as string,
    runIds,
    workloadId: run.workloadId as string,
  };
}

/** One response's Server-Timing: `{ pg: { dur, n }, ch: { dur, n } }` (empty on builds without it). */
function storeTimes(res: Response): Record<string, { dur: number; n: number }> {
  const out: Record<string, { dur: number; n: number }> = {};
  for (const m of (res.headers.get('server-timing') ?? '').matchAll(/(\w+);dur=([\d.]+)(?:;desc="(\d+))?/g))
    out[m[1]] = { dur: Number(m[2]), n: Number(m[3] ?? 0) };
  return out;
}

interface TPageTimes {
  ms: number[];
  /** Per request: summed PostgreSQL/ClickHouse call time and call counts (Server-Timing). */
  pg: number[];
  ch: number[];
  pgN: number;
  chN: number;
  /** The warm-up request (the page's first: the series cache holds nothing of its window yet). */
  first?: number;
}

/** Times `url` (GET, session cookie); null when this build does not serve it (404: an older build). */
async function timePage(
  base: string,
  jar: CookieJar,
  page: string | (() => string),
): Promise<TPageTimes | null> {
  const at = typeof page === 'string' ? () => page : page;
  const trpc = at().startsWith('/api/trpc/');
  const headers: Record<string, string> = trpc ? { 'x-org': ORG } : {};
  const t: TPageTimes = { ms: [], pg: [], ch: [], pgN: 0, chN: 0 };
  const get = async () => {
    const url = at();
    const res = await jar.get(`${base}${url}`, headers);
    if (res.status === 404 && trpc) return false;
    const text = await ok(res, url);
    if (!text.startsWith(trpc ? '{"result":' : '{"type":"data"'))
      throw new Error(`${url}: ${text.slice(0, 300)}`);
    const st = storeTimes(res);
    if (st.pg) t.pg.push(st.pg.dur);
    if (st.ch) t.ch.push(st.ch.dur);
    t.pgN = st.pg?.n ?? 0;
    t.chN = st.ch?.n ?? 0;
    return true;
  };
  const t0 = performance.now();
  if (!(await get())) return null; // warm-up
  t.first = performance.now() - t0;
  t.pg = [];
  t.ch = [];
  t.ms = await timeCalls(ITER, get);
  return t;
}

/**
 * The charts the cluster/node page fetches after it rendered (builds that have `dashboard.chartsView`), for
 * the `span` up to now: the window moves with every request, as a live page's does.
 */
const chartsUrl = (id: string, span: number, nodeId?: number) => () => {
  const to = Date.now();
  return `/api/trpc/dashboard.chartsView?input=${encodeURIComponent(JSON.stringify({ id, nodeId, from: to - span, to }))}`;
};

async function main() {
  if (KEEP_DIR) mkdirSync(KEEP_DIR, { recursive: true });
  const dataDir = KEEP_DIR || mkdtempSync(path.join(tmpdir(), 'cs-bench-pages-'));
  const setupFile = path.join(dataDir, 'bench-setup.json');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = appEnv(dataDir, port);
  let app: Awaited<ReturnType<typeof startApp>> | null = null;
  try {
    let s: TSetup;
    if (KEEP_DIR && existsSync(setupFile)) {
      s = JSON.parse(readFileSync(setupFile, 'utf8')) as TSetup;
      log(`reusing the data in ${dataDir}`);
    } else {
      log(`starting the app on ${base} (data in ${dataDir})`);
      app = await startApp(env);
      s = await setUp(base, dataDir, env);
      await app.stop();
      app = null;

      log(`loading ${DAYS} days × ${NODES} nodes × 10 s of history…`);
      const ch = await openClickHouse({ path: path.join(dataDir, 'clickhouse') });
      await migrate(ch);
      const gen = await loadBenchData(ch, {
        orgId: s.orgId,
        clusterId: s.clusterId,
        nodes: NODES,
        days: DAYS,
      });
      await ch.close();
      log(`loaded ${gen.nodeStatusRows} + ${gen.cgroupRows} rows in ${(gen.ms / 1000).toFixed(1)} s`);
      if (KEEP_DIR) writeFileSync(setupFile, JSON.stringify(s));
    }

    for (const build of BUILDS) {
      app = await startApp({ ...env, WEB_BUILD_DIR: build, SERVER_TIMING: '1' });
      const jar = await signIn(base, dataDir);
      const c = `/${ORG}/clusters/${s.clusterId}`;
      const pages: [string, string | (() => string)][] = [
        ['cluster_1h', `${c}/__data.json?range=1h`],
        ['cluster_24h', `${c}/__data.json?range=24h`],
        ['cluster_30d', `${c}/__data.json?range=30d`],
        ['node', `${c}/nodes/1/__data.json?range=1h`],
        ['oncall', `/${ORG}/oncall/__data.json`],
        ['clusters', `/${ORG}/clusters/__data.json`],
        ['runs', `/${ORG}/runs/__data.json`],
        ['run', `/${ORG}/runs/${s.runIds[0]}/__data.json`],
        ['compare', `/${ORG}/compare/__data.json?runs=${s.runIds.slice(0, 3).join(',')}`],
        ['workload', `/${ORG}/workloads/${s.workloadId}/__data.json`],
        ['charts_1h', chartsUrl(s.clusterId, HOUR)],
        ['charts_24h', chartsUrl(s.clusterId, 24 * HOUR)],
        ['charts_30d', chartsUrl(s.clusterId, 30 * 24 * HOUR)],
        ['charts_node', chartsUrl(s.clusterId, HOUR, 1)],
      ];
      const result: Record<string, number | string> = { build, nodes: NODES, days: DAYS, iterations: ITER };
      for (const [name, url] of pages) {
        if (ONLY.length && !ONLY.includes(name)) continue;
        const t = await timePage(base, jar, url);
        if (!t) {
          log(`${build} ${name}: not served by this build`);
          continue;
        }
        result[`${name}_p50_ms`] = r1(pct(t.ms, 50));
        result[`${name}_p95_ms`] = r1(pct(t.ms, 95));
        if (t.first !== undefined) result[`${name}_first_ms`] = r1(t.first);
        let stores = '';
        if (t.pg.length) {
          // Median summed store time per request, and the calls one request makes (Server-Timing).
          result[`${name}_pg_ms`] = r1(pct(t.pg, 50));
          result[`${name}_pg_n`] = t.pgN;
          result[`${name}_ch_ms`] = r1(pct(t.ch, 50));
          result[`${name}_ch_n`] = t.chN;
          stores = ` (PostgreSQL ${t.pgN} × → ${result[`${name}_pg_ms`]} ms, ClickHouse ${t.chN} × → ${result[`${name}_ch_ms`]} ms)`;
        }
        log(
          `${build} ${name}: p50 ${result[`${name}_p50_ms`]} ms, p95 ${result[`${name}_p95_ms`]} ms${stores}`,
        );
      }
      const html = await ok(await jar.get(`${base}${c}?range=1h`), 'cluster page');
      result.cluster_html_kb = r1(Buffer.byteLength(html) / 1024);
      const d30 = await ok(await jar.get(`${base}${c}/__data.json?range=30d`), 'cluster data');
      result.cluster_30d_data_kb = r1(Buffer.byteLength(d30) / 1024);
      const ch1h = await jar.get(`${base}${chartsUrl(s.clusterId, HOUR)()}`, {
        'x-org': ORG,
      });
      if (ch1h.ok) result.charts_1h_kb = r1(Buffer.byteLength(await ch1h.text()) / 1024);
      if (DUMP) {
        mkdirSync(DUMP, { recursive: true });
        writeFileSync(path.join(DUMP, `${build}-cluster-1h.html`), html);
        writeFileSync(path.join(DUMP, `${build}-cluster-30d.json`), d30);
      }
      console.log(JSON.stringify(result));
      await app.stop();
      app = null;
    }
  } finally {
    await app?.stop();
    if (!KEEP_DIR) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    log(err.stack ?? String(err));
    process.exit(1);
  },
);
