import { createLiveBus, type TLiveBus, type TLiveEvent } from '@clusterscope/db';
import { getEnv } from './env';

const WINDOW_MS = 250;
const g = globalThis as unknown as {
  __csLive?: TLiveBus;
  __csLiveLast?: Map<string, { at: number; pending: boolean }>;
};

export function getLiveBus(): TLiveBus {
  g.__csLive ??= createLiveBus(getEnv().DATABASE_URL);
  return g.__csLive;
}

function send(e: Omit<TLiveEvent, 'ts'>) {
  getLiveBus()
    .publish(e)
    .catch(() => undefined);
}

/**
 * Publishes a change notice, throttled per (org, topic, cluster, run) to one per 250 ms with a trailing
 * send, so bursts collapse but the last change is never dropped. Fire-and-forget: live updates must
 * never fail or slow an accepted write.
 */
export function notify(e: Omit<TLiveEvent, 'ts'>): void {
  const key = `${e.orgId}|${e.topic}|${e.clusterId ?? ''}|${e.runId ?? ''}`;
  const last = (g.__csLiveLast ??= new Map());
  const now = Date.now();
  const s = last.get(key);
  if (!s || s.at <= now - WINDOW_MS) {
    last.set(key, { at: now, pending: false });
    send(e);
    return;
  }
  if (s.pending) return;
  s.pending = true;
  setTimeout(
    () => {
      last.set(key, { at: Date.now(), pending: false });
      send(e);
    },
    s.at + WINDOW_MS - now,
  );
}
