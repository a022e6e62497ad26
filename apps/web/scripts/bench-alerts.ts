/**
 * `npm run bench:alerts`: on-call alerting measured on loopback, in one process, bounded (~2–3 min).
 *
 * Real parts: an embedded PostgreSQL (temp dir), chDB (temp dir), the ingest writer, the evaluator + notifier
 * loop with its advisory-lock leader, a webhook receiver on 127.0.0.1, and the tRPC API over HTTP
 * (fetchRequestHandler + appRouter, bearer token), the stack the web process runs minus SvelteKit.
 *
 * 1. detection latency: 20 clusters (one trial each, random phases) with agent-like samples every 10 s;
 *    node 2 of each goes DEAD; a rule with for: 0 routes critical alerts to the webhook (group_wait 0).
 *    Latency = first DEAD sample written → webhook request received. The alerting thread as the web process
 *    runs it (its own PostgreSQL pool, chDB read through this thread), at ALERT_EVAL_INTERVAL_S (15), plus
 *    the ingest fast path: after each write the "agent" publishes the 'samples' notice the ingest endpoint
 *    publishes on the LISTEN/NOTIFY bus, which nudges the leader.
 * 2. false pages: 10 minutes of flapping (node DEAD for ≤ 20 s every 2 min) and noisy-but-healthy values
 *    (capacity 70–79 %, a 1-sample under-replicated blip, ranges_unavailable never) under the built-in
 *    rules and default grouping, time-compressed: the clock is simulated (`now` passed to the evaluator),
 *    samples every 10 s, evaluation every 15 s. Counts webhook requests.
 * 3. evaluator cost: one cycle with 1,000 rules over 50 nodes (median and max of 10 cycles, on this thread),
 *    and the API's p95 (GET alerting.list) idle vs while the alerting thread runs its cycles back to back
 *    (interval 1 ms) as in the web process (the JSON reports how many cycles ran during the loaded
 *    measurement and the share of its wall time they covered, so "back to back" is checked, not assumed),
 *    and the web thread's busy time per cycle (it answers the thread's chDB reads).
 *
 * BENCH_PARTS=latency,false,cost picks parts (default all); BENCH_TRIALS the detection trials (20).
 */
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter, type TContext } from '@clusterscope/api';
import { createDb, createLiveBus } from '@clusterscope/db';
import { startEmbeddedPostgres } from '@clusterscope/db/embedded';
import { deployMigrations } from '@clusterscope/db/migrate';
import {
  createAlertRule,
  createChannel,
  setRouting,
  ALERT_THREAD_NICE,
  createEvaluatorMemo,
  evaluateAlerts,
  notifyAlerts,
  startAlertingThread,
  type TAlertCycle,
  type TEvalStats,
} from '@clusterscope/services/alerting';
import { secretKeysOf, type TDeps } from '@clusterscope/services/core';
import { createToken, type TCaller } from '@clusterscope/services/tenancy';
import { createWriter } from '@clusterscope/tsdb';
import { nodeSample as node, openTempClickHouse } from '@clusterscope/tsdb/testing';
import { bootWorkerFromSource, NODE_DOWN_NOW } from '@clusterscope/services/testing';
import { intEnv } from './lib/env';
import { pct, r1 } from './lib/stats';

const log = (m: string) => console.error(`bench-alerts: ${m}`);
const TRIALS = intEnv('BENCH_TRIALS', 20);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'latency,false,cost').split(','));

const EVAL_S = intEnv('ALERT_EVAL_INTERVAL_S', 15);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const tmp = mkdtempSync(path.join(tmpdir(), 'cs-bench-alerts-'));
  const thread = bootWorkerFromSource('alerting/thread-worker.ts');
  const pg = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pg'), log: () => undefined });
  const stops: (() => Promise<unknown>)[] = [];
  try {
    await deployMigrations(pg.url);
    const db = createDb(pg.url);
    const ch = await openTempClickHouse();
    stops.push(
      () => ch.cleanup(),
      () => db.$disconnect(),
    );
    const writer = createWriter(ch.ch, { maxDelayMs: 0 });
    stops.push(() => writer.close());
    const deps: TDeps = { db, ch: ch.ch, origin: 'http://127.0.0.1' };
    /** The alerting thread as the web process starts it (cycles every `intervalMs`). */
    const startThread = (intervalMs: number, onCycle?: (c: TAlertCycle) => void) => {
      const stop = startAlertingThread(deps, {
        entry: thread.entry,
        config: {
          databaseUrl: pg.url,
          intervalMs,
          origin: deps.origin,
          secrets: secretKeysOf(deps),
          nice: ALERT_THREAD_NICE,
        },
        onCycle,
      });
      stops.push(stop);
      return stop;
    };

    // Webhook receiver: records arrival time per cluster (first request per group key).
    const arrivals = new Map<string, number>();
    const hooksByOrg = new Map<string, number>();
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        const p = JSON.parse(body) as { groupKey: string; status: string; org: string };
        hooksByOrg.set(p.org, (hooksByOrg.get(p.org) ?? 0) + 1);
        if (p.status === 'firing' && !arrivals.has(p.groupKey)) arrivals.set(p.groupKey, Date.now());
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    stops.push(() => new Promise((r) => receiver.close(r)));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

    // The API over HTTP.
    const api = createServer(async (req, res) => {
      const r = await fetchRequestHandler({
        endpoint: '/api/trpc',
        req: new Request(`http://127.0.0.1${req.url}`, { headers: req.headers as Record<string, string> }),
        router: appRouter,
        createContext: (): TContext => ({
          deps,
          userId: null,
          bearer: String(req.headers.authorization ?? '').replace(/^Bearer /, ''),
          orgSlug: null,
        }),
      });
      res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text());
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    stops.push(() => new Promise((r) => api.close(r)));
    const apiBase = `http://127.0.0.1:${(api.address() as { port: number }).port}`;

    const mkOrg = async (slug: string) => {
      const org = await db.organization.create({ data: { id: slug, name: slug, slug } });
      const caller: TCaller = {
        kind: 'token',
        tokenId: 't',
        orgId: org.id,
        orgSlug: slug,
        scopes: ['admin'],
        clusterId: null,
      };
      return { org, caller };
    };
    const fns: Record<string, (d: TDeps, c: TCaller, i: unknown) => Promise<unknown>> = {
      createChannel: createChannel,
      setRouting,
      createRule: createAlertRule,
    };
    const call = (caller: TCaller, p: string, input: unknown) =>
      fns[p]!(deps, caller, input) as Promise<{ id: string }>;
    /** A webhook channel to the receiver above. */
    const addHook = (caller: TCaller) =>
      call(caller, 'createChannel', {
        name: 'hook',
        kind: 'webhook',
        config: { url: hookUrl },
        secret: { hmacSecret: 'bench' },
      });

    let latencies: number[] = [];
    if (PARTS.has('latency')) {
      // ---- 1. detection latency ----
      log(`detection latency: ${TRIALS} clusters, samples every 10 s, evaluator every ${EVAL_S} s`);
      const lat = await mkOrg('latency');
      const hook = await addHook(lat.caller);
      await call(lat.caller, 'setRouting', {
        routes: [{ severity: 'critical', channelIds: [hook.id] }],
        grouping: { groupWaitS: 0, groupIntervalS: 300, repeatIntervalS: 14_400 },
      });
      await call(lat.caller, 'createRule', NODE_DOWN_NOW);
      const clusters = await Promise.all(
        Array.from({ length: TRIALS }, (_, i) =>
          db.cluster.create({ data: { organizationId: lat.org.id, name: `trial-${i}`, intervalS: 10 } }),
        ),
      );
      const ingestBus = createLiveBus(pg.url);
      stops.push(() => ingestBus.close());
      const stopLoop = startThread(EVAL_S * 1000);
      const downAt = new Map<string, number>();
      const t0 = Date.now();
      const phase = clusters.map(() => Math.random() * 10_000);
      const downAfter = clusters.map(() => 20_000 + Math.random() * 15_000);
      const agents = clusters.map((c, i) =>
        (async () => {
          await sleep(phase[i]!);
          for (let k = 0; Date.now() - t0 < 80_000 && !arrivals.has(c.id); k++) {
            const now = Date.now();
            const dead = now - t0 >= downAfter[i]!;
            await writer.write(lat.org.id, c.id, `${c.id}-${k}`, [1, 2, 3].map((n) =>
              node(n, now, n === 2 && dead ? { liveness: 'DEAD' } : {}),
            )); // prettier-ignore
            if (dead && !downAt.has(c.id)) downAt.set(c.id, now);
            await ingestBus.publish({
              orgId: lat.org.id,
              topic: 'samples',
              clusterId: c.id,
              kinds: ['node_status'],
            });
            await sleep(10_000 - (Date.now() - now));
          }
        })(),
      );
      await Promise.all(agents);
      await stopLoop();
      latencies = clusters
        .filter((c) => downAt.has(c.id) && arrivals.has(c.id))
        .map((c) => (arrivals.get(c.id)! - downAt.get(c.id)!) / 1000);
    }

    let falsePages: number | null = null;
    if (PARTS.has('false')) {
      // ---- 2. false pages (simulated 10 minutes) ----
      log(
        'false pages: 10 simulated minutes of flapping and noisy-but-healthy data under the built-in rules',
      );
      const noisy = await mkOrg('noisy');
      const noisyHook = await addHook(noisy.caller);
      const sev = ['critical', 'warning', 'info'] as const;
      await call(noisy.caller, 'setRouting', {
        routes: sev.map((severity) => ({ severity, channelIds: [noisyHook.id] })),
      });
      const nc = await db.cluster.create({
        data: { organizationId: noisy.org.id, name: 'flappy', intervalS: 10 },
      });
      const memo = createEvaluatorMemo();
      let t = Date.now() + 1000;
      for (let k = 0; k < 60; k++) {
        t += 10_000;
        const inMinute = k % 12;
        const samples = [1, 2, 3, 4, 5].map((n) =>
          node(n, t, {
            // flap: node 3 DEAD for 2 samples (≤ 20 s) every 2 minutes
            ...(n === 3 && (inMinute === 4 || inMinute === 5) ? { liveness: 'DEAD' as const } : {}),
            capacity_available: 1e12 * (0.21 + Math.random() * 0.09), // 70–79 % used
            ranges_underreplicated: n === 1 && k % 17 === 0 ? 1 : 0, // brief blips, far below 5 min
          }),
        );
        await writer.write(noisy.org.id, nc.id, `noisy-${k}`, samples);
        if (k % 3 === 2) {
          await evaluateAlerts(deps, { now: new Date(t), memo });
          await notifyAlerts(deps, new Date(t));
        }
      }
      await sleep(500);
      falsePages = hooksByOrg.get('noisy') ?? 0;
    }

    // ---- 3. evaluator cost and API p95 ----
    log('evaluator cost: 1,000 rules over 50 nodes');
    const big = await mkOrg('big');
    const bc = await db.cluster.create({ data: { organizationId: big.org.id, name: 'big', intervalS: 10 } });
    const now = Date.now();
    await writer.write(
      big.org.id,
      bc.id,
      'big-0',
      Array.from({ length: 50 }, (_, i) => node(i + 1, now)),
    );
    const series = [
      'node.down',
      'node.capacity_pct',
      'node.ranges_underreplicated',
      'node.replicas',
      'node.age_s',
    ];
    await db.alertRule.createMany({
      data: Array.from({ length: 1000 }, (_, i) => ({
        organizationId: big.org.id,
        clusterId: bc.id,
        name: `rule ${i}`,
        series: series[i % series.length]!,
        aggregation: i % 10 === 0 ? 'max' : 'node',
        comparison: 'gt',
        threshold: 1e12, // never true: the steady-state cost
        forS: 60,
        severity: 'warning',
      })),
    });
    // Only the big org from here on: drop the others' rows so a cycle sees 1,000 rules (+ 10 built-ins) × 50 nodes.
    await db.organization.deleteMany({ where: { id: { in: ['latency', 'noisy'] } } });
    await evaluateAlerts(deps); // creates the built-ins
    // Cost of one cycle, and the event loop's busy time per cycle, on this thread.
    const e0 = performance.eventLoopUtilization();
    const cycles: number[] = [];
    const fetchMs: number[] = [];
    const planMs: number[] = [];
    const saveMs: number[] = [];
    let stats!: TEvalStats;
    for (let i = 0; i < 10; i++) {
      stats = await evaluateAlerts(deps);
      cycles.push(stats.ms);
      fetchMs.push(stats.fetchMs);
      planMs.push(stats.planMs);
      saveMs.push(stats.saveMs);
    }
    const loopInline = r1(performance.eventLoopUtilization(e0).active / 10);

    const token = (await createToken(deps, big.org.id, { name: 'bench', scopes: ['read'] })).token;
    const url = `${apiBase}/api/trpc/alerting.list?input=${encodeURIComponent(JSON.stringify({}))}`;
    const measure = async (n: number) => {
      const xs: number[] = [];
      for (let i = 0; i < n; i++) {
        const s = performance.now();
        const r = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        await r.text();
        if (!r.ok) throw new Error(`API answered ${r.status}`);
        xs.push(performance.now() - s);
      }
      return xs;
    };
    await measure(20); // warm-up
    const eld = () => {
      const h = monitorEventLoopDelay({ resolution: 5 });
      h.enable();
      return () => (h.disable(), Math.round(h.percentile(99) / 1e5) / 10);
    };
    const idleEld = eld();
    const idle = await measure(200);
    const idleLoopP99 = idleEld();
    // Loaded: the alerting thread's cycles back to back (interval 1 ms), as the web process runs them.
    let loadedCycles = 0;
    let loadedCycleMs = 0;
    let counting = false;
    const threadCycles: number[] = [];
    const stopThread = startThread(1, (c) => {
      if (c.ms === undefined) return;
      threadCycles.push(c.ms);
      if (!counting) return;
      loadedCycles++;
      loadedCycleMs += c.ms;
    });
    for (const end = Date.now() + 30_000; threadCycles.length < 3 && Date.now() < end; ) await sleep(50);
    // This thread's busy time per cycle with no requests: answering the thread's chDB reads.
    const quietElu = performance.eventLoopUtilization();
    const quietFrom = threadCycles.length;
    await sleep(5000);
    const webMsPerCycle = r1(
      performance.eventLoopUtilization(quietElu).active / Math.max(1, threadCycles.length - quietFrom),
    );
    counting = true;
    const loadedStart = performance.now();
    const loadedEld = eld();
    const during = await measure(200);
    const loadedLoopP99 = loadedEld();
    const loadedWall = performance.now() - loadedStart;
    counting = false;
    await stopThread();

    console.log(
      JSON.stringify({
        detection_latency_s: {
          trials: latencies.length,
          p50: r1(pct(latencies, 50)),
          p95: r1(pct(latencies, 95)),
          max: r1(Math.max(...latencies)),
          eval_interval_s: EVAL_S,
          ingest_nudge: true,
          rule_for_s: 0,
          group_wait_s: 0,
          agent_interval_s: 10,
        },
        false_pages: {
          notifications: falsePages,
          simulated_minutes: 10,
          rules: 'built-in',
          grouping: 'default (30 s / 5 min / 4 h)',
        },
        evaluator: {
          rules: stats.rules,
          nodes: 50,
          subjects: stats.subjects,
          cycle_ms_p50: r1(pct(cycles, 50)),
          cycle_ms_max: r1(Math.max(...cycles)),
          fetch_ms_p50: r1(pct(fetchMs, 50)),
          plan_ms_p50: r1(pct(planMs, 50)),
          save_ms_p50: r1(pct(saveMs, 50)),
          // A whole cycle (lock, evaluation, notification) on the alerting thread at nice 10.
          thread_cycle_ms_p50: r1(pct(threadCycles, 50)),
          event_loop_ms_per_cycle: {
            on_web_thread: loopInline,
            alerting_thread: webMsPerCycle,
          },
        },
        api_alerting_list_ms: {
          idle_p95: r1(pct(idle, 95)),
          during_eval_p95: r1(pct(during, 95)),
          ratio: Math.round((pct(during, 95) / pct(idle, 95)) * 100) / 100,
          loaded_cycles: loadedCycles,
          event_loop_delay_p99_ms: { idle: idleLoopP99, loaded: loadedLoopP99 },
          // Share of the loaded measurement's wall time covered by cycles (≈ 1 = back to back).
          loaded_cycle_busy: Math.round(Math.min(1, loadedCycleMs / loadedWall) * 100) / 100,
        },
      }),
    );
  } finally {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    await pg.stop();
    rmSync(tmp, { recursive: true, force: true });
    rmSync(thread.dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench-alerts: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
