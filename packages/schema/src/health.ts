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
 * Whether a node's range and replica counts are current and count toward cluster totals: not STALE (its
 * report is older than STALE_INTERVALS), not DEAD (a dead node's last report repeats old counts) and not
 * DECOMMISSIONED, as the DB Console counts. Other nodes keep their rows, marked "last known".
 */
export const countsTowardTotals = (s: TNodeState): boolean =>
  s !== 'STALE' && s !== 'DEAD' && s !== 'DECOMMISSIONED';

/** Lower-case state word for sentences ("2 stale", "1 unavailable"): the same words as the badges. */
export const stateWord = (s: TNodeState): string => s.toLowerCase();

/**
 * On-call severity groups, worst first, from the cluster's one status (`clusterStatus` in services):
 * - critical: status bad (a node DEAD or UNAVAILABLE, unavailable ranges, a critical alert firing);
 * - warning: status warn (under-replicated ranges, a STALE node, a failing input, a warning alert firing),
 *   or a cluster that went silent recently;
 * - ok: everything else that reports;
 * - quiet: never reported, or silent for longer than QUIET_AFTER_MS (one compact line at the bottom).
 */
export const CLUSTER_SEVERITIES = ['critical', 'warning', 'ok', 'quiet'] as const;
export type TClusterSeverity = (typeof CLUSTER_SEVERITIES)[number];

/** A cluster with no node heard from for this long is "quiet" rather than a warning. */
export const QUIET_AFTER_MS = 60 * 60_000;

/** What the on-call order of a cluster is decided from: its status level and its nodes. */
export interface TSeverityFacts {
  /** The level of the cluster's one status. */
  level: 'ok' | 'warn' | 'bad' | 'stale' | 'empty';
  /** Displayed node states (STALE when silent), DECOMMISSIONED included. */
  states: readonly TNodeState[];
  /** Ranges counted over reporting (not STALE) nodes only. */
  ranges_unavailable: number;
  ranges_underreplicated: number;
  /** Newest sample of any node; null = never reported. */
  last_ts: number | null;
}

export function clusterSeverity(f: TSeverityFacts, now: number): TClusterSeverity {
  switch (f.level) {
    case 'bad':
      return 'critical';
    case 'warn':
      return 'warning';
    case 'ok':
      return 'ok';
    case 'stale':
      return f.last_ts !== null && now - f.last_ts <= QUIET_AFTER_MS ? 'warning' : 'quiet';
    default:
      return 'quiet';
  }
}

/** Per-state node counts, every state present (zero when none). */
export function countStates(states: readonly TNodeState[]): Record<TNodeState, number> {
  const out = Object.fromEntries(NODE_STATES.map((s) => [s, 0])) as Record<TNodeState, number>;
  for (const s of states) out[s]++;
  return out;
}

export interface TOncallSummary {
  clusters: Record<TClusterSeverity, number>;
  nodes: Record<TNodeState, number>;
}

/**
 * On-call order: severity group, then within critical/warning the one with more broken nodes and ranges,
 * then name. Returns the clusters with their severity, and the counts of clusters per severity and of
 * nodes per state for the summary line.
 */
export function orderOncall<T extends TSeverityFacts & { name: string }>(
  clusters: readonly T[],
  now: number,
): { clusters: (T & { severity: TClusterSeverity })[]; summary: TOncallSummary } {
  const n = (c: T, ...of: TNodeState[]) => c.states.filter((s) => of.includes(s)).length;
  // Within a group: more DEAD/UNAVAILABLE nodes, then unavailable ranges, STALE nodes, under-replicated ranges.
  const worse = (a: T, b: T) =>
    n(b, 'DEAD', 'UNAVAILABLE') - n(a, 'DEAD', 'UNAVAILABLE') ||
    b.ranges_unavailable - a.ranges_unavailable ||
    n(b, 'STALE') - n(a, 'STALE') ||
    b.ranges_underreplicated - a.ranges_underreplicated;
  const withSeverity = clusters.map((c) => ({ ...c, severity: clusterSeverity(c, now) }));
  withSeverity.sort(
    (a, b) =>
      CLUSTER_SEVERITIES.indexOf(a.severity) - CLUSTER_SEVERITIES.indexOf(b.severity) ||
      (a.severity === 'quiet' ? 0 : worse(a, b)) ||
      a.name.localeCompare(b.name),
  );
  const summary: TOncallSummary = {
    clusters: { critical: 0, warning: 0, ok: 0, quiet: 0 },
    nodes: countStates(clusters.flatMap((c) => c.states)),
  };
  for (const c of withSeverity) summary.clusters[c.severity]++;
  return { clusters: withSeverity, summary };
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

const MINUTE = 60_000;
/** "40 s", "6 min", "2 h 5 min": how long something has lasted. */
export function forHowLong(ms: number): string {
  if (ms < MINUTE) return `${Math.max(0, Math.round(ms / 1000))} s`;
  const min = Math.round(ms / MINUTE);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

/** "cockroachdb input failing for 6 min: connection refused (http://…:8080)". */
export function describeFailingInput(
  i: { input: string; error: string | null; since: number | null },
  now: number,
): string {
  const since = i.since === null ? '' : ` for ${forHowLong(now - i.since)}`;
  return `${i.input} input failing${since}${i.error ? `: ${i.error}` : ''}`;
}

/** Longest time window a chart, event list or page range may cover. */
export const MAX_CHART_SPAN_DAYS = 92;
export const MAX_CHART_SPAN_MS = MAX_CHART_SPAN_DAYS * 86_400_000;
