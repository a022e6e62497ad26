import type { TLiveEvent } from './deps';

/** A viewer's stream: gets whole SSE frames (bytes shared by every viewer of the org: do not mutate). */
export type TSink = (bytes: Uint8Array) => void;

type TSubscribe = (orgId: string, fn: (e: TLiveEvent) => void) => Promise<() => void>;

interface THub {
  sinks: Set<TSink>;
  pending: Uint8Array[];
  timer: ReturnType<typeof setTimeout> | null;
  unsubscribe: Promise<() => void>;
}

/** Notices within this window reach a viewer as one write (the SSE p95 budget is far above it). */
export const FANOUT_WINDOW_MS = 20;

const enc = new TextEncoder();

/** Pure: the SSE frame of a change notice (what a page needs to know what to refetch). */
export function toFrame(e: TLiveEvent): string {
  const data = { clusterId: e.clusterId ?? null, runId: e.runId ?? null, kinds: e.kinds ?? [], ts: e.ts };
  return `event: ${e.topic.replace(/[^\w:-]/g, '_')}\ndata: ${JSON.stringify(data)}\n\n`;
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Live fan-out to SSE viewers: ONE bus subscription per org, each notice serialised and encoded once,
 * and the notices of a `windowMs` window written to each viewer as one chunk (one socket write per
 * viewer per window, not per notice). Heartbeats go to every viewer from one timer.
 */
export function createFanout(opts: { subscribe: TSubscribe; windowMs: number; heartbeatMs: number }) {
  const hubs = new Map<string, THub>();
  let beat: ReturnType<typeof setInterval> | null = null;

  function flush(hub: THub) {
    hub.timer = null;
    if (hub.pending.length === 0) return;
    const bytes = concat(hub.pending.splice(0));
    for (const sink of hub.sinks) sink(bytes);
  }

  function publish(orgId: string, e: TLiveEvent) {
    const hub = hubs.get(orgId);
    if (!hub || hub.sinks.size === 0) return;
    hub.pending.push(enc.encode(toFrame(e)));
    if (opts.windowMs <= 0) flush(hub);
    else hub.timer ??= setTimeout(() => flush(hub), opts.windowMs);
  }

  function heartbeat() {
    const bytes = enc.encode(`: ping ${Date.now()}\n\n`);
    for (const hub of hubs.values()) for (const sink of hub.sinks) sink(bytes);
  }

  return {
    /** Adds a viewer of `orgId`; resolves once its notices flow, to the function that removes it. */
    async add(orgId: string, sink: TSink): Promise<() => void> {
      let hub = hubs.get(orgId);
      if (!hub) {
        const created: THub = {
          sinks: new Set(),
          pending: [],
          timer: null,
          unsubscribe: Promise.resolve(() => {}),
        };
        created.unsubscribe = opts.subscribe(orgId, (e) => publish(orgId, e));
        hubs.set(orgId, created);
        hub = created;
        // A failed subscription must not leave a hub that never delivers: the next viewer retries.
        created.unsubscribe.catch(() => {
          if (hubs.get(orgId) === created) hubs.delete(orgId);
        });
      }
      const h = hub;
      h.sinks.add(sink);
      beat ??= setInterval(heartbeat, opts.heartbeatMs);
      try {
        await h.unsubscribe;
      } catch (err) {
        h.sinks.delete(sink);
        throw err;
      }
      let removed = false;
      return () => {
        if (removed) return;
        removed = true;
        h.sinks.delete(sink);
        if (h.sinks.size > 0 || hubs.get(orgId) !== h) return;
        hubs.delete(orgId);
        if (h.timer) clearTimeout(h.timer);
        void h.unsubscribe.then((off) => off()).catch(() => undefined);
        if (hubs.size === 0 && beat) {
          clearInterval(beat);
          beat = null;
        }
      };
    },
    /** Viewers per org (tests, diagnostics). */
    viewers: (orgId: string) => hubs.get(orgId)?.sinks.size ?? 0,
  };
}
export type TFanout = ReturnType<typeof createFanout>;
