/**
 * Node states as the dashboard shows them: CockroachDB liveness, or STALE when the agent went quiet.
 * Plain TypeScript (no zod) so the phone-sized on-call page can import it without a schema library.
 */
export const NODE_STATES = [
  'DEAD',
  'UNAVAILABLE',
  'STALE',
  'UNKNOWN',
  'DECOMMISSIONING',
  'DRAINING',
  'STARTING',
  'LIVE',
  'DECOMMISSIONED',
] as const;
export type TNodeState = (typeof NODE_STATES)[number];

/** Severity rank: lower is worse (tiles and tables sort worst-first). */
export const stateRank = (s: TNodeState): number => NODE_STATES.indexOf(s);

/** Badge tone per state (CSS classes in apps/web/src/app.css). */
export const STATE_TONE: Record<TNodeState, 'ok' | 'warn' | 'bad' | 'info' | 'stale' | 'muted'> = {
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

/** A node silent for this many push intervals is STALE: its last values are never shown as current. */
export const STALE_INTERVALS = 3;

export const staleAfterMs = (intervalS: number) => STALE_INTERVALS * intervalS * 1000;

/**
 * The displayed state of a node from its latest liveness (or already-derived state) and when it was last
 * heard from. The server derives it at load time; pages re-derive it as their clock advances.
 */
export function deriveNodeState(
  state: TNodeState,
  lastTs: number,
  now: number,
  intervalS: number,
): TNodeState {
  if (state === 'DECOMMISSIONED') return 'DECOMMISSIONED';
  if (state === 'STALE' || now - lastTs > staleAfterMs(intervalS)) return 'STALE';
  return state;
}

/**
 * DEAD only when the data says so. CockroachDB declares a node dead after `server.time_until_store_dead`
 * (5 minutes by default) without a liveness heartbeat; `is_live=false` + `is_available=false` alone is not proof
 * (a majority outage marks every node unavailable). The agent judges a node's silence by its `updated_at` against
 * the newest `updated_at` in the same output (the cluster's own clock, immune to skew between the agent host and the
 * cluster): silent longer than this → DEAD; shorter, or no timestamps in the output → UNAVAILABLE (not live).
 * The STALE rule above is the dashboard's, about the agent's own silence.
 */
export const TIME_UNTIL_STORE_DEAD_MS = 5 * 60_000;

/** True when a not-live node's silence (ms, null = unknown) proves it DEAD. */
export function deadFromSilence(silentMs: number | null, deadAfterMs = TIME_UNTIL_STORE_DEAD_MS): boolean {
  return silentMs !== null && silentMs >= deadAfterMs;
}

/** Longest time window a chart, event list or page range may cover. */
export const MAX_CHART_SPAN_DAYS = 92;
export const MAX_CHART_SPAN_MS = MAX_CHART_SPAN_DAYS * 86_400_000;
