/** Browser side of live updates: one EventSource on /api/live per page, debounced refetch on change. */
import { debounce as debounceFn } from 'es-toolkit/compat';

/**
 * `depends` key of every load that shows cluster health (clusters list, cluster, node, on-call): a live
 * notice re-runs only those loads (`invalidate(LIVE_HEALTH)`), not the layout's.
 */
export const LIVE_HEALTH = 'cs:health';

export interface TLiveNotice {
  topic: string;
  clusterId: string | null;
  runId: string | null;
  kinds: string[];
  ts: number;
}

export type TLiveStatus = 'connecting' | 'live' | 'offline';

export interface TLiveOptions {
  /** Only notices this returns true for trigger a refetch (default: all). */
  filter?: (n: TLiveNotice) => boolean;
  /** Called (debounced) after matching notices. */
  onChange: () => void;
  onStatus?: (s: TLiveStatus) => void;
  /** Topics to listen to. Default ['samples']. */
  topics?: string[];
  /** Quiet time before refetching; bursts collapse into one call. Default 250 ms. */
  debounceMs?: number;
  /** A refetch happens at least this often while notices keep arriving. Default 1000 ms. */
  maxWaitMs?: number;
}

/**
 * Debounce with a max wait (es-toolkit's lodash-compatible one): `fn` runs `wait` ms after the last call,
 * but no later than `maxWait` after the first call of a burst (so a steady stream of notices still
 * refreshes the page).
 */
export const debounce = (fn: () => void, wait: number, maxWait: number) => debounceFn(fn, wait, { maxWait });

/** Opens the org's event stream; returns the function that closes it. EventSource reconnects itself. */
export function connectLive(org: string, opts: TLiveOptions): () => void {
  if (typeof EventSource === 'undefined') return () => {};
  const changed = debounce(opts.onChange, opts.debounceMs ?? 250, opts.maxWaitMs ?? 1000);
  const es = new EventSource(`/api/live?org=${encodeURIComponent(org)}`);
  opts.onStatus?.('connecting');
  let wasOffline = false;
  es.addEventListener('ready', () => {
    opts.onStatus?.('live');
    // Missed notices while disconnected: refetch once after a reconnect.
    if (wasOffline) changed();
    wasOffline = false;
  });
  es.onerror = () => {
    wasOffline = true;
    opts.onStatus?.(es.readyState === EventSource.CLOSED ? 'offline' : 'connecting');
  };
  const onNotice = (ev: MessageEvent<string>) => {
    try {
      const data = JSON.parse(ev.data) as Omit<TLiveNotice, 'topic'>;
      const n = { ...data, topic: ev.type };
      if (!opts.filter || opts.filter(n)) changed();
    } catch {
      /* malformed notice: ignore */
    }
  };
  for (const t of opts.topics ?? ['samples']) es.addEventListener(t, onNotice);
  return () => {
    changed.cancel();
    es.close();
  };
}
