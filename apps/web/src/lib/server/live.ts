import { getLiveBus, type TLiveEvent } from './deps';
import { getEnv } from './env';
import { createThrottle } from './throttle';

export { getLiveBus };

const g = globalThis as unknown as {
  __csLiveThrottle?: ReturnType<typeof createThrottle<Omit<TLiveEvent, 'ts'>>>;
  __csLiveGate?: TConnectionGate;
};

function send(e: Omit<TLiveEvent, 'ts'>) {
  getLiveBus()
    .publish(e)
    .catch(() => undefined);
}

/**
 * Publishes a change notice, throttled per (org, topic, cluster, run) to one per 250 ms with a trailing
 * send, so bursts collapse but the last change is never dropped; at most 10k keys are remembered.
 * Fire-and-forget: live updates must never fail or slow an accepted write.
 */
export function notify(e: Omit<TLiveEvent, 'ts'>): void {
  g.__csLiveThrottle ??= createThrottle(send, { windowMs: 250, maxKeys: 10_000 });
  g.__csLiveThrottle.call(`${e.orgId}|${e.topic}|${e.clusterId ?? ''}|${e.runId ?? ''}`, e);
}

export interface TConnectionGate {
  /** A release function, or why the connection is refused. */
  acquire(userId: string, orgId: string): { release: () => void } | { refused: string };
}

/** Counts open live streams per user and per organization (this process) and refuses past the caps. */
export function createConnectionGate(opts: { perUser: number; perOrg: number }): TConnectionGate {
  const users = new Map<string, number>();
  const orgs = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, d: number) => {
    const n = (m.get(k) ?? 0) + d;
    if (n > 0) m.set(k, n);
    else m.delete(k);
  };
  return {
    acquire(userId, orgId) {
      if ((users.get(userId) ?? 0) >= opts.perUser)
        return { refused: `too many live connections for this user (limit ${opts.perUser})` };
      if ((orgs.get(orgId) ?? 0) >= opts.perOrg)
        return { refused: `too many live connections for this organization (limit ${opts.perOrg})` };
      add(users, userId, 1);
      add(orgs, orgId, 1);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          add(users, userId, -1);
          add(orgs, orgId, -1);
        },
      };
    },
  };
}

export function getLiveGate(): TConnectionGate {
  const env = getEnv();
  g.__csLiveGate ??= createConnectionGate({ perUser: env.LIVE_MAX_PER_USER, perOrg: env.LIVE_MAX_PER_ORG });
  return g.__csLiveGate;
}
