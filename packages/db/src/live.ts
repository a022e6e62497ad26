import { EventEmitter } from 'node:events';
import pg from 'pg';

/** A change notice fanned out to open dashboards; pages refetch what it names. */
export interface TLiveEvent {
  orgId: string;
  /** e.g. 'samples', 'run', 'alert' */
  topic: string;
  clusterId?: string | null;
  runId?: string | null;
  kinds?: string[];
  ts: number;
}

const CHANNEL = 'clusterscope_live';
/** Local event names: subscribeAll (every org's notices); the LISTEN connection went up or down. */
const ALL = Symbol('all');
const LISTENING = Symbol('listening');
/** Own notices awaiting their echo (remembered so subscribers can tell them apart); oldest dropped past this. */
const MAX_OWN = 1_000;

/**
 * Cross-instance fan-out over Postgres LISTEN/NOTIFY: every web instance LISTENs on one connection and
 * re-emits locally; publishing is a NOTIFY (payloads stay small: pages refetch).
 */
export function createLiveBus(url: string, channel: string = CHANNEL) {
  const local = new EventEmitter();
  local.setMaxListeners(0);
  let listener: pg.Client | null = null;
  let closed = false;
  let connecting: Promise<void> | null = null;
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  /** Payloads this bus published whose echo has not come back yet (count per payload). */
  const own = new Map<string, number>();
  /** Whether `payload` was one of them (forgets it once). */
  const take = (payload: string) => {
    const n = own.get(payload) ?? 0;
    if (n > 1) own.set(payload, n - 1);
    else if (n === 1) own.delete(payload);
    return n > 0;
  };

  async function listen(): Promise<void> {
    if (closed) return;
    const c = new pg.Client({ connectionString: url });
    c.on('error', () => undefined);
    c.on('notification', (m) => {
      if (m.channel !== channel || !m.payload) return;
      const mine = take(m.payload);
      try {
        const e = JSON.parse(m.payload) as TLiveEvent;
        local.emit(e.orgId, e);
        local.emit(ALL, e, mine);
      } catch {
        /* foreign payload */
      }
    });
    c.on('end', () => {
      if (listener === c) local.emit(LISTENING, false);
      listener = null;
      // Reconnect after a Postgres restart; notices in between are lost (pages also poll slowly).
      if (!closed) setTimeout(() => void ensure(), 1000);
    });
    await c.connect();
    await c.query(`LISTEN ${channel}`);
    listener = c;
    local.emit(LISTENING, true);
  }

  function ensure(): Promise<void> {
    if (listener || closed) return Promise.resolve();
    connecting ??= listen()
      .catch(() => {
        if (!closed) setTimeout(() => void ensure(), 1000);
      })
      .finally(() => (connecting = null));
    return connecting;
  }

  return {
    async publish(e: Omit<TLiveEvent, 'ts'>): Promise<void> {
      const payload = JSON.stringify({ ...e, ts: Date.now() });
      own.set(payload, (own.get(payload) ?? 0) + 1);
      if (own.size > MAX_OWN) own.delete(own.keys().next().value as string);
      try {
        await pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
      } catch (err) {
        take(payload);
        throw err;
      }
    },
    /** Subscribes to one org's events; returns the unsubscribe function. */
    async subscribe(orgId: string, fn: (e: TLiveEvent) => void): Promise<() => void> {
      await ensure();
      local.on(orgId, fn);
      return () => local.off(orgId, fn);
    },
    /**
     * Subscribes to every org's events (server-side consumers such as the alert evaluator); `own`: this bus
     * published it (its echo: what this instance already applied locally).
     */
    async subscribeAll(fn: (e: TLiveEvent, own: boolean) => void): Promise<() => void> {
      await ensure();
      local.on(ALL, fn);
      return () => local.off(ALL, fn);
    },
    /**
     * Calls `fn` with whether notices are heard now and on every change (down: notices in between are
     * lost, so caches that rely on them must stop); returns the unsubscribe function.
     */
    onListening(fn: (on: boolean) => void): () => void {
      local.on(LISTENING, fn);
      fn(listener !== null);
      return () => local.off(LISTENING, fn);
    },
    async close(): Promise<void> {
      closed = true;
      await listener?.end().catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  };
}
export type TLiveBus = ReturnType<typeof createLiveBus>;

/** Channel that wakes agents' job long-polls on every instance when a run is queued for their org. */
export const JOBS_CHANNEL = 'clusterscope_jobs';
