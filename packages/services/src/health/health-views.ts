import {
  countsTowardTotals,
  countStates,
  describeFailingInput,
  stateRank,
  stateWord,
  type TClusterStatus,
  type TCols,
  type TFailingInput,
  type TSeverity,
  type TStatusAlerts,
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
  describeFailingInput,
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

/** Counts for a cluster's headline; range counts include only nodes whose counts are current (`countsTowardTotals`). */
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
    if (countsTowardTotals(n.state)) {
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

/** An alert as the status counts it: firing instances of the cluster, silenced or not. */
export interface TStatusAlert {
  id: string;
  severity: TSeverity;
  summary: string;
  silenced: boolean;
  /** When it started firing (older first among equals). */
  firedAt: number | null;
}

/** Badness of a level; a firing alert or failing input raises the level to at least its own. */
const LEVEL_RANK: Record<TClusterStatus['level'], number> = { empty: 0, ok: 1, stale: 2, warn: 3, bad: 4 };
/** Info alerts are shown and counted but never raise the level. */
const ALERT_LEVEL: Record<TSeverity, TClusterStatus['level'] | null> = {
  critical: 'bad',
  warning: 'warn',
  info: null,
};
const SEVERITY_ORDER: Record<TSeverity, number> = { critical: 0, warning: 1, info: 2 };

function summarizeAlerts(alerts: readonly TStatusAlert[]): TStatusAlerts {
  const firing = alerts
    .filter((a) => !a.silenced)
    .sort(
      (a, b) =>
        SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
        (a.firedAt ?? Infinity) - (b.firedAt ?? Infinity),
    );
  const w = firing[0];
  return {
    firing: firing.length,
    silenced: alerts.length - firing.length,
    worst: w ? { id: w.id, severity: w.severity, summary: w.summary } : null,
  };
}

/** What besides node data decides a cluster's status. */
export interface TStatusExtras {
  /** The cluster's firing alert instances (silenced ones too). */
  alerts?: readonly TStatusAlert[];
  /** Its agents' failing inputs. */
  inputs?: readonly TFailingInput[];
  now?: number;
}

/** Node-data status: worst condition first, with the on-call severity groups (`severityOf`). */
function nodeStatus(c: THealthCounts): Pick<TClusterStatus, 'level' | 'headline' | 'details'> {
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

/**
 * The one status per cluster: the worst active problem among node liveness and ranges, failing agent
 * inputs and firing alerts. Its level is at least the worst unsilenced firing severity (critical = bad,
 * warning = warn); silenced alerts are listed and never raise it. The headline is the worst problem's;
 * the others follow in `details`. On-call, the clusters list, the cluster header, the navigation badge
 * and REST all show this object, so no page can read green while an alert fires.
 */
export function clusterStatus(c: THealthCounts, extras: TStatusExtras = {}): TClusterStatus {
  const now = extras.now ?? Date.now();
  const alerts = summarizeAlerts(extras.alerts ?? []);
  const inputs = [...(extras.inputs ?? [])];
  const base = nodeStatus(c);
  let { level, headline } = base;
  const details = [...base.details];
  const raise = (to: TClusterStatus['level'], line: string) => {
    if (LEVEL_RANK[to] > LEVEL_RANK[level]) {
      // The replaced headline stays as the first detail ("All 3 live": the nodes are fine).
      details.unshift(headline);
      level = to;
      headline = line;
    } else details.push(line);
  };
  if (inputs.length) {
    const first = describeFailingInput(inputs[0], now);
    raise('warn', inputs.length === 1 ? first : `${inputs.length} inputs failing · ${first}`);
  }
  if (alerts.worst) {
    const line =
      alerts.firing === 1
        ? alerts.worst.summary
        : `${alerts.firing} alerts firing · worst: ${alerts.worst.summary}`;
    const to = ALERT_LEVEL[alerts.worst.severity];
    if (to) raise(to, line);
    else details.push(line);
  }
  if (alerts.silenced > 0) details.push(`${plural(alerts.silenced, 'silenced alert')}`);
  return { level, headline, details, alerts, inputs };
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
