import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { sveltekitCookies } from 'better-auth/svelte-kit';
import { getRequestEvent } from '$app/server';
import { createDb, createLiveBus, JOBS_CHANNEL, type TLiveBus, type TLiveEvent } from '@clusterscope/db';
import {
  createLogger,
  createMailer,
  createOutbound,
  loadSecretKeys,
  type TDeps,
  type TLogger,
} from '@clusterscope/services/core';
import {
  createIngestPool,
  createParser,
  defaultIngestWorkers,
  getIngestWriter,
  type TIngestPool,
} from '@clusterscope/services/ingest';
import { createSeriesCache, LATE_SAMPLES, SAMPLES } from '@clusterscope/services/reads';
import { sealWorkloadSecrets } from '@clusterscope/services/runs';
import { createAuth, type TAuth } from '@clusterscope/services/tenancy';
import { migrate, openClickHouse, type TTsdb } from '@clusterscope/tsdb';

export type { TLiveEvent } from '@clusterscope/db';
export type { TWriter } from '@clusterscope/tsdb';
import { CLIENT_IP_HEADER } from './client-address';
import { getEnv } from './env';
import { createFanout, FANOUT_WINDOW_MS, type TFanout } from './live-fanout';
import { createConnectionGate, type TConnectionGate } from './live-gate';
import { startMallocTrim } from './malloc-trim';
import { createRateLimiter, type TRateLimiter } from './rate-limit';
import { createSignInLimiter, type TSignInLimiter } from './sign-in-limit';
import { createThrottle } from './throttle';
import { record, timed, timeMethods } from './timing';
import { loadVapid } from './vapid';

export interface TServer {
  deps: TDeps;
  auth: TAuth;
}

type TNotice = Omit<TLiveEvent, 'ts'>;

/**
 * The process's long-lived objects. Only this module creates them, each on first use. They hang off one
 * globalThis entry because vite dev evaluates modules again after every edit, and a second chDB engine, bus,
 * pool or timer per reload would leak; the production server evaluates this module once.
 */
interface TProcess {
  server?: Promise<TServer>;
  closers: (() => Promise<unknown>)[];
  live?: TLiveBus;
  notices?: ReturnType<typeof createThrottle<TNotice>>;
  gate?: TConnectionGate;
  fanout?: TFanout;
  signIn?: TSignInLimiter;
  ingestLimiter?: { rate: number; limiter: TRateLimiter };
  ingestPool?: TIngestPool;
  background?: Promise<void>;
}

const g = globalThis as unknown as { __clusterscope?: TProcess };
const proc: TProcess = (g.__clusterscope ??= { closers: [] });

/** The process's one logger: the server, its services (through `deps.log`) and its hooks write through it. */
export const log: TLogger = createLogger();

/** Registers cleanup (flush writers, stop timers, close stores) for graceful shutdown; runs last-in first-out. */
export function onShutdown(fn: () => Promise<unknown>): void {
  proc.closers.push(fn);
}

export async function shutdown(): Promise<void> {
  const fns = proc.closers.splice(0).reverse();
  for (const fn of fns)
    await fn().catch((err: Error) => log.error({ err: err.message }, 'shutdown step failed'));
}

/** The handle with its queries timed for Server-Timing (the reads the request's code makes). */
const timeTsdb = (ch: TTsdb): TTsdb => ({
  ...ch,
  client: timeMethods(ch.client, 'ch', ['query', 'command', 'exec', 'insert']),
  selectJson: (...a) => timed('ch', () => ch.selectJson(...a)),
});

/** Opens both stores once per process and applies ClickHouse migrations (chDB lives in this process only). */
export function getServer(): Promise<TServer> {
  proc.server ??= (async () => {
    const env = getEnv();
    const stopTrim = startMallocTrim(env.MALLOC_TRIM_MS, (msg) => log.info(msg));
    onShutdown(async () => stopTrim());
    const db = createDb(env.DATABASE_URL, {
      ...(env.SERVER_TIMING ? { observe: (ms: number) => record('pg', ms) } : {}),
      onPoolError: (err) => log.warn({ err: err.message }, 'postgres pool error'),
    });
    onShutdown(() => db.$disconnect());
    const opened = await openClickHouse({ url: env.CLICKHOUSE_URL, path: env.CLICKHOUSE_PATH });
    const ch = env.SERVER_TIMING ? timeTsdb(opened) : opened;
    onShutdown(() => ch.close());
    const ping = await ch.ping();
    if (!ping.ok) throw new Error(ping.error);
    await migrate(ch, { cluster: env.CLICKHOUSE_CLUSTER, dir: env.CLICKHOUSE_MIGRATIONS_DIR });
    // LISTEN/NOTIFY wakes agents' job long-polls on every instance when a run is queued.
    const jobBus = createLiveBus(env.DATABASE_URL, JOBS_CHANNEL);
    onShutdown(() => jobBus.close());
    const secrets = env.SECRETS_KEY ? loadSecretKeys(env.SECRETS_KEY, env.SECRETS_KEY_PREVIOUS) : undefined;
    const outbound = createOutbound({ allow: env.OUTBOUND_ALLOW });
    const mail = createMailer({ smtpUrl: env.SMTP_URL, from: env.SMTP_FROM, outbound });
    const deps: TDeps = {
      db,
      ch,
      jobBus,
      secrets,
      mail,
      origin: env.ORIGIN,
      vapid: loadVapid(env, log),
      outbound,
      log,
    };
    // Posted tool output is parsed on the bundled parse-worker.js next to index.js (absent in vite dev: in-thread).
    const parseEntry = path.join(path.dirname(process.argv[1] ?? ''), 'parse-worker.js');
    if (existsSync(parseEntry)) {
      const parser = createParser({
        entry: parseEntry,
        budgetMs: env.PARSE_TIMEOUT_MS,
        log,
      });
      deps.parser = parser;
      onShutdown(() => parser.close());
    }
    if (env.SERIES_CACHE_MB > 0) {
      // Refresh-ahead after the notice's fan-out window: the viewers' notices are written first.
      const series = createSeriesCache({
        maxBytes: env.SERIES_CACHE_MB * 1024 * 1024,
        refreshMs: FANOUT_WINDOW_MS + 5,
      });
      deps.series = series;
      // Every instance's writes reach this one's cache: late samples drop a cluster's entries, others
      // its newest part. Without the LISTEN connection the cache asks ClickHouse for the newest data.
      // This instance's own notices were applied at the write (ingest); their echo would only make the
      // cache read again what it just refreshed.
      const bus = getLiveBus();
      const offState = bus.onListening((on) => series.notices(on));
      const off = await bus.subscribeAll((e, own) => {
        if (!e.clusterId || own) return;
        if (e.topic === LATE_SAMPLES) series.invalidate(e.orgId, e.clusterId);
        else if (e.topic === SAMPLES) series.changed(e.orgId, e.clusterId, e.kinds);
      });
      onShutdown(async () => {
        off();
        offState();
        series.close();
      });
    }
    // Rows from before encryption: seal any clear-text password now (idempotent, quick when none).
    const sealed = await sealWorkloadSecrets(deps);
    if (sealed.sealed || sealed.failed.length)
      log[sealed.failed.length ? 'warn' : 'info'](
        { sealed: sealed.sealed, failed: sealed.failed.length },
        'sealed workload credentials stored in clear text',
      );
    // Runs before ch.close (last in, first out): accepted batches still coalescing get flushed.
    const writer = getIngestWriter(deps, {
      maxDelayMs: env.INGEST_FLUSH_MS,
      minRoundMs: env.INGEST_ROUND_MS,
    });
    onShutdown(() => writer.close());
    const auth = createAuth(db, {
      secret: env.BETTER_AUTH_SECRET,
      baseURL: env.ORIGIN,
      localOrigins: env.LOCAL_ORIGINS ?? false,
      clientIpHeader: CLIENT_IP_HEADER,
      plugins: [sveltekitCookies(getRequestEvent)],
      signup: env.SIGNUP,
      mailer: mail,
    });
    return { deps, auth };
  })();
  return proc.server;
}

/** The live-update bus of this process (Postgres LISTEN/NOTIFY). */
export function getLiveBus(): TLiveBus {
  proc.live ??= createLiveBus(getEnv().DATABASE_URL);
  return proc.live;
}

/**
 * Change notices, throttled per (org, topic, cluster, run) to one per 250 ms with a trailing send, so bursts
 * collapse but the last change is never dropped; at most 10k keys are remembered.
 */
export function getNotices(): ReturnType<typeof createThrottle<TNotice>> {
  proc.notices ??= createThrottle(
    (e: TNotice) =>
      void getLiveBus()
        .publish(e)
        .catch(() => undefined),
    { windowMs: 250, maxKeys: 10_000 },
  );
  return proc.notices;
}

/** Open live streams per user and org, capped (LIVE_MAX_PER_USER, LIVE_MAX_PER_ORG). */
export function getLiveGate(): TConnectionGate {
  const env = getEnv();
  proc.gate ??= createConnectionGate({ perUser: env.LIVE_MAX_PER_USER, perOrg: env.LIVE_MAX_PER_ORG });
  return proc.gate;
}

/** The SSE fan-out: one bus subscription per org, one write per viewer per window. */
export function getFanout(): TFanout {
  proc.fanout ??= createFanout({
    subscribe: (orgId, fn) => getLiveBus().subscribe(orgId, fn),
    windowMs: FANOUT_WINDOW_MS,
    heartbeatMs: LIVE_HEARTBEAT_MS,
  });
  return proc.fanout;
}

/** A comment line this often keeps proxies from closing a live stream. */
const LIVE_HEARTBEAT_MS = 15_000;

/** The limiter shared by the /login form action and /api/auth/sign-in/email. */
export function getSignInLimiter(): TSignInLimiter {
  proc.signIn ??= createSignInLimiter();
  return proc.signIn;
}

/** Ingest requests per token and second (INGEST_RATE_PER_S). */
export function getIngestLimiter(rate: number): TRateLimiter {
  if (proc.ingestLimiter?.rate !== rate) proc.ingestLimiter = { rate, limiter: createRateLimiter(rate) };
  return proc.ingestLimiter.limiter;
}

/**
 * The ingest workers: INGEST_WORKERS threads (default: defaultIngestWorkers) running the bundled
 * ingest-worker.js next to the server's index.js. Without that file (vite dev, tests) or with
 * INGEST_WORKERS=0, batches are decoded on the event loop.
 */
export function getIngestPool(): TIngestPool {
  if (proc.ingestPool) return proc.ingestPool;
  const env = getEnv();
  const entry = path.join(path.dirname(process.argv[1] ?? ''), 'ingest-worker.js');
  const size = existsSync(entry) ? (env.INGEST_WORKERS ?? defaultIngestWorkers(availableParallelism())) : 0;
  const pool = createIngestPool({ size, entry, log });
  proc.ingestPool = pool;
  onShutdown(() => pool.close());
  return pool;
}

/**
 * Starts the background work once per process, after the stores are open: `start` is the list of loops
 * (demo, job sweeper, alerting, schedules) that hooks.server.ts passes in.
 */
export function startBackground(start: ((server: TServer) => Promise<void> | void)[]): Promise<void> {
  proc.background ??= (async () => {
    const server = await getServer();
    for (const fn of start) await fn(server);
  })();
  return proc.background;
}
