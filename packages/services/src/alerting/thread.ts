/**
 * The alerting loop (leader lock, evaluator, notifier) on its own thread of the web process, with its own
 * PostgreSQL pool and a lower scheduling priority: Prisma runs its query compiler on the JS thread, so a cycle
 * on the event loop would take that time away from requests. The web thread only answers the thread's ClickHouse
 * reads when ClickHouse is chDB (one per process, opened there); with CLICKHOUSE_URL the thread opens its own
 * client. The entry is thread-worker.ts (bundled by apps/web as alert-worker.js).
 */
import { Worker } from 'node:worker_threads';
import type { TDeps } from '../core/deps';
import type { TSecretKeys } from '../core/secrets';
import type { TAlertCycle } from './runner';
import { logOf, type TLogger } from '../core/logger';

export interface TAlertThreadConfig {
  databaseUrl: string;
  /** ClickHouse over HTTP: the thread opens its own client. Absent = chDB, read through the web thread. */
  clickhouseUrl?: string;
  intervalMs: number;
  origin?: string;
  smtp?: { url?: string; from?: string };
  /** OUTBOUND_ALLOW (outbound.ts): the thread sends the notifications. */
  outboundAllow?: string;
  vapid?: TDeps['vapid'];
  /** The web thread's keys (secretKeysOf: SECRETS_KEY or its ephemeral key), to open channel secrets. */
  secrets: TSecretKeys;
  /** The thread's nice value (Linux keeps one per thread); 0 leaves it as is. */
  nice: number;
}

export type TToThread =
  | { t: 'ch'; id: number; ok: true; json: Uint8Array }
  | { t: 'ch'; id: number; ok: false; error: string }
  | { t: 'stop' };
export type TFromThread =
  | { t: 'ch'; id: number; query: string; params: Record<string, unknown> }
  | { t: 'cycle'; c: TAlertCycle }
  | { t: 'stopped' };

const STOP_GRACE_MS = 2000;
/**
 * Caps the thread's heap so an idle isolate does not grow the web's RSS, with room for cycles that run back to
 * back under heavy ingest (the cap sits well above `bench:load`'s peak). Out of memory = the thread exits and
 * is started again. A process-wide `--max-semi-space-size` (the launcher's) overrides the young generation's
 * limit.
 */
const THREAD_HEAP = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16 };

/** Nice 10: the thread yields to the request path under contention yet still gets a share of a busy core. */
export const ALERT_THREAD_NICE = 10;

/**
 * Starts the thread; a thread that dies is started again after `restartMs` (its lock is released with its
 * connection, so another instance may lead meanwhile). Returns stop: the thread stops its loop, releases the
 * lock and closes its pool, or is terminated after 2 s.
 */
export function startAlertingThread(
  deps: Pick<TDeps, 'ch' | 'log'>,
  opts: {
    entry: string | URL;
    config: TAlertThreadConfig;
    onCycle?: (c: TAlertCycle) => void;
    restartMs?: number;
    log?: TLogger;
  },
): () => Promise<void> {
  const log = opts.log ?? logOf(deps);
  let stopping = false;
  let worker: Worker | null = null;
  let restart: NodeJS.Timeout | null = null;
  let exited: Promise<void> = Promise.resolve();

  function spawn() {
    const w = new Worker(opts.entry, { workerData: opts.config, resourceLimits: THREAD_HEAP });
    worker = w;
    exited = new Promise((resolve) => w.once('exit', () => resolve()));
    w.on('message', (m: TFromThread) => {
      if (m.t === 'cycle') opts.onCycle?.(m.c);
      else if (m.t === 'ch') void answer(w, m);
    });
    w.on('error', (err) => {
      log.error({ err: err.message }, 'alerting thread failed');
    });
    w.on('exit', (code) => {
      if (worker === w) worker = null;
      if (stopping) return;
      log.warn({ code }, 'alerting thread exited; restarting');
      restart = setTimeout(spawn, opts.restartMs ?? 5000);
    });
  }

  async function answer(w: Worker, m: Extract<TFromThread, { t: 'ch' }>) {
    // Bytes, parsed by the thread: this thread only binds and runs the query.
    let json: Uint8Array;
    try {
      json = await deps.ch.selectJson(m.query, m.params, deps.ch.background);
    } catch (err) {
      w.postMessage({ t: 'ch', id: m.id, ok: false, error: (err as Error).message } satisfies TToThread);
      return;
    }
    w.postMessage({ t: 'ch', id: m.id, ok: true, json } satisfies TToThread, [json.buffer as ArrayBuffer]);
  }

  spawn();
  return async () => {
    stopping = true;
    if (restart) clearTimeout(restart);
    const w = worker;
    if (!w) return;
    // At nice 10 under a saturated CPU a cycle can take seconds: do not hold up the web's shutdown for it
    // (its transactions roll back with the connection; the next leader re-evaluates).
    const kill = setTimeout(() => void w.terminate(), STOP_GRACE_MS);
    w.postMessage({ t: 'stop' } satisfies TToThread);
    await exited;
    clearTimeout(kill);
  };
}
