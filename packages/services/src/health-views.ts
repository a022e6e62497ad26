import {
  countStates,
  stateRank,
  stateWord,
  type TClusterStatus,
  type TCols,
  type THealthCounts,
  type TLiveness,
  type TNodeState,
  type TStatePeriod,
} from '@clusterscope/schema';

export {
  NODE_STATES,
  STATE_TONE,
  STALE_INTERVALS,
  deriveNodeState,
  staleAfterMs,
  stateRank,
} from '@clusterscope/schema';
export type { TClusterStatus, THealthCounts, TNodeState, TStatePeriod };

export interface TNodeLike {
  state: TNodeState;
  last_ts: number;
  ranges_underreplicated: number | null;
  ranges_unavailable: number | null;
}

/** Counts for a cluster's headline; range counts include only nodes that are not STALE. */
export function countHealth(nodes: readonly TNodeLike[]): THealthCounts {
  const c: THealthCounts = {
    total: 0, live: 0, dead: 0, draining: 0, stale: 0, states: countStates(nodes.map((n) => n.state)),
    ranges_underreplicated: 0, ranges_unavailable: 0, last_ts: null,
  }; // prettier-ignore
  for (const n of nodes) {
    c.last_ts = c.last_ts === null ? n.last_ts : Math.max(c.last_ts, n.last_ts);
    if (n.state === 'DECOMMISSIONED') continue;
    c.total++;
    if (n.state === 'LIVE') c.live++;
    else if (n.state === 'DEAD') c.dead++;
    else if (n.state === 'DRAINING' || n.state === 'DECOMMISSIONING') c.draining++;
    if (n.state === 'STALE') c.stale++;
    else {
      c.ranges_underreplicated += n.ranges_underreplicated ?? 0;
      c.ranges_unavailable += n.ranges_unavailable ?? 0;
    }
  }
  return c;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "1 unavailable · 2 stale": nodes in the given states, in the state words of the badges. */
function nodesIn(c: THealthCounts, states: readonly TNodeState[]): string {
  return states
    .filter((s) => (c.states[s] ?? 0) > 0)
    .map((s) => `${c.states[s]} ${stateWord(s)}`)
    .join(' · ');
}

/**
 * The one big status per cluster, worst condition first, with the severity groups of on-call
 * (`clusterSeverity`): bad = critical, warn = warning, stale = silent, empty = never reported.
 */
export function clusterStatus(c: THealthCounts): TClusterStatus {
  const details: string[] = [];
  if (c.ranges_unavailable > 0) details.push(`${plural(c.ranges_unavailable, 'unavailable range')}`);
  if (c.ranges_underreplicated > 0)
    details.push(`${plural(c.ranges_underreplicated, 'under-replicated range')}`);
  const other = nodesIn(c, ['UNKNOWN', 'DRAINING', 'DECOMMISSIONING', 'STARTING']);
  if (other) details.push(other);
  if (c.stale > 0 && c.stale < c.total) details.push(`${c.stale} stale`);
  if (c.total === 0) return { level: 'empty', headline: 'No data yet', details };
  if (c.stale === c.total) return { level: 'stale', headline: 'No recent data', details };
  const broken = nodesIn(c, ['DEAD', 'UNAVAILABLE']);
  if (broken) return { level: 'bad', headline: broken, details };
  if (c.ranges_unavailable > 0)
    return { level: 'bad', headline: plural(c.ranges_unavailable, 'unavailable range'), details };
  if (c.stale > 0)
    return {
      level: 'warn',
      headline: `${c.stale} stale`,
      details: details.filter((d) => !/ stale$/.test(d)),
    };
  if (c.live < c.total || c.ranges_underreplicated > 0)
    return { level: 'warn', headline: `${c.live}/${c.total} live`, details };
  return { level: 'ok', headline: `All ${c.total} live`, details };
}

/** Worst state first, then longest silence, then node id. */
export function sortWorstFirst<T extends { state: TNodeState; last_ts: number; node_id: number }>(
  nodes: readonly T[],
): T[] {
  return [...nodes].sort(
    (a, b) => stateRank(a.state) - stateRank(b.state) || a.last_ts - b.last_ts || a.node_id - b.node_id,
  );
}

/**
 * State history from liveness transitions (ordered by time): the state before the first transition
 * holds from the window start. `current` is used when there was no transition at all.
 */
export function toStatePeriods(
  events: readonly { ts: number; from: TLiveness; to: TLiveness }[],
  windowFrom: number,
  current: TLiveness | null,
): TStatePeriod[] {
  if (events.length === 0) return current ? [{ state: current, from: windowFrom, to: null }] : [];
  const out: TStatePeriod[] = [{ state: events[0].from, from: windowFrom, to: events[0].ts }];
  events.forEach((e, i) => out.push({ state: e.to, from: e.ts, to: events[i + 1]?.ts ?? null }));
  return out.reverse();
}

/**
 * A cluster-wide line from per-node lines (`t` ascending): per step bucket, the sum over nodes of each
 * node's last value in it (NaN skipped); buckets where no node has a value are left out.
 */
export function sumAcrossNodes(lines: readonly TCols[], stepMs: number): TCols {
  const step = Math.max(1, stepMs);
  const sums = new Map<number, number>();
  for (const { t, v } of lines) {
    let at = NaN; // the bucket of the values seen last
    let last = NaN; // its last value
    for (let i = 0; i <= t.length; i++) {
      const b = i < t.length ? Math.floor(t[i] / step) * step : NaN;
      if (b !== at) {
        if (!Number.isNaN(last)) sums.set(at, (sums.get(at) ?? 0) + last);
        at = b;
        last = NaN;
      }
      if (i < t.length && Number.isFinite(v[i])) last = v[i];
    }
  }
  const t = [...sums.keys()].sort((a, b) => a - b);
  return { t, v: t.map((x) => sums.get(x) as number) };
}
