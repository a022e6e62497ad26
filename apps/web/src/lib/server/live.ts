import { getLiveBus, type TLiveEvent } from './deps';
import { getEnv } from './env';
import { createFanout, FANOUT_WINDOW_MS, type TFanout } from './live-fanout';
import { createConnectionGate, type TConnectionGate } from './live-gate';
import { createThrottle } from './throttle';

export { getLiveBus };

const g = globalThis as unknown as {
  __csLiveThrottle?: ReturnType<typeof createThrottle<Omit<TLiveEvent, 'ts'>>>;
  __csLiveGate?: TConnectionGate;
  __csLiveFanout?: TFanout;
};

const HEARTBEAT_MS = 15_000;

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

export function getLiveGate(): TConnectionGate {
  const env = getEnv();
  g.__csLiveGate ??= createConnectionGate({ perUser: env.LIVE_MAX_PER_USER, perOrg: env.LIVE_MAX_PER_ORG });
  return g.__csLiveGate;
}

/** The SSE fan-out of this process: one bus subscription per org, one write per viewer per window. */
export function getFanout(): TFanout {
  g.__csLiveFanout ??= createFanout({
    subscribe: (orgId, fn) => getLiveBus().subscribe(orgId, fn),
    windowMs: FANOUT_WINDOW_MS,
    heartbeatMs: HEARTBEAT_MS,
  });
  return g.__csLiveFanout;
}
