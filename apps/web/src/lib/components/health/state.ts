/**
 * Client-side view of node states (the browser cannot import @clusterscope/services). The server already
 * derives STALE at load time; this re-derives it as the page's clock advances between refetches.
 */
export type TNodeState =
  | 'DEAD'
  | 'UNAVAILABLE'
  | 'STALE'
  | 'UNKNOWN'
  | 'DECOMMISSIONING'
  | 'DRAINING'
  | 'STARTING'
  | 'LIVE'
  | 'DECOMMISSIONED';

export const TONE: Record<TNodeState, string> = {
  DEAD: 'bad',
  UNAVAILABLE: 'bad',
  STALE: 'stale',
  UNKNOWN: 'warn',
  DECOMMISSIONING: 'info',
  DRAINING: 'warn',
  STARTING: 'info',
  LIVE: 'ok',
  DECOMMISSIONED: 'muted',
};

export function displayState(state: TNodeState, lastTs: number, now: number, intervalS: number): TNodeState {
  if (state === 'DECOMMISSIONED' || state === 'STALE') return state;
  return now - lastTs > 3 * intervalS * 1000 ? 'STALE' : state;
}

/** Compact age: "4s", "3m", "2h", "5d". */
export function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}
