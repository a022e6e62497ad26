import { createLiveBus, type TLiveBus, type TLiveEvent } from '@clusterscope/db';
import { getEnv } from './env';

const g = globalThis as unknown as { __csLive?: TLiveBus; __csLiveLast?: Map<string, number> };

export function getLiveBus(): TLiveBus {
  g.__csLive ??= createLiveBus(getEnv().DATABASE_URL);
  return g.__csLive;
}

/**
 * Publishes a change notice, at most one per (org, topic, cluster/run) per 250 ms so a busy ingest path
 * does not flood NOTIFY. Fire-and-forget: live updates must never fail or slow an accepted write.
 */
export function notify(e: Omit<TLiveEvent, 'ts'>): void {
  const key = `${e.orgId}|${e.topic}|${e.clusterId ?? ''}|${e.runId ?? ''}`;
  const last = (g.__csLiveLast ??= new Map());
  const now = Date.now();
  if ((last.get(key) ?? 0) > now - 250) return;
  last.set(key, now);
  getLiveBus()
    .publish(e)
    .catch(() => undefined);
}
