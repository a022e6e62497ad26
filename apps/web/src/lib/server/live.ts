import { getFanout, getLiveBus, getLiveGate, getNotices, type TLiveEvent } from './deps';

export { getFanout, getLiveBus, getLiveGate };

/**
 * Publishes a change notice (throttled, see getNotices). Fire-and-forget: live updates must never fail or slow
 * an accepted write.
 */
export function notify(e: Omit<TLiveEvent, 'ts'>): void {
  getNotices().call(`${e.orgId}|${e.topic}|${e.clusterId ?? ''}|${e.runId ?? ''}`, e);
}
