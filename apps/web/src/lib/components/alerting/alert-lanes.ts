import type { TAlertInstance } from '@clusterscope/schema';
import { ms, sortAlerts, subject } from './format';

/** [start, end] in epoch ms; end null: still open (drawn up to now). */
export type TSpan = [number, number | null];

/**
 * One lane of the cluster page's alert timeline: exactly what it draws. A single alert (id set) or, when
 * one rule has many instances in the same state, one lane for all of them (id null) whose spans are the
 * union of theirs — 50 "Node stale" alerts are one lane, not 50.
 */
export interface TAlertLane {
  id: string | null;
  /** The alert's summary (or rule name); the rule name for a group. */
  title: string;
  /** "node 5", or "50 nodes" for a group. */
  subject: string;
  severity: TAlertInstance['severity'];
  state: TAlertInstance['state'];
  count: number;
  spans: TSpan[];
}

/** Instances of one rule in one state from which they share a lane. */
export const GROUP_AT = 4;
/** Spans kept per grouped lane; beyond it the lane is one span from the first start to the last end. */
const MAX_SPANS = 20;

const spanOf = (a: TAlertInstance, from: number): TSpan => [
  ms(a.activeAt) ?? ms(a.firedAt) ?? from,
  a.state === 'resolved' ? ms(a.resolvedAt) : null,
];

/** Overlapping or touching spans merged, in start order. */
export function mergeSpans(spans: readonly TSpan[]): TSpan[] {
  const out: TSpan[] = [];
  for (const [s, e] of [...spans].sort((a, b) => a[0] - b[0])) {
    const last = out.at(-1);
    if (last && (last[1] === null || s <= last[1])) {
      if (last[1] !== null) last[1] = e === null ? null : Math.max(last[1], e);
    } else out.push([s, e]);
  }
  if (out.length <= MAX_SPANS) return out;
  return [[out[0][0], out.some((x) => x[1] === null) ? null : Math.max(...out.map((x) => x[1] ?? 0))]];
}

/** The lanes of a cluster's alerts, worst first (firing, then pending, then resolved); `from`: range start. */
export function buildAlertLanes(alerts: readonly TAlertInstance[], from: number): TAlertLane[] {
  const sorted = sortAlerts(alerts);
  const groupKey = (a: TAlertInstance) => `${a.ruleId}\u0000${a.state}\u0000${a.severity}`;
  const sizes = new Map<string, number>();
  for (const a of sorted) sizes.set(groupKey(a), (sizes.get(groupKey(a)) ?? 0) + 1);
  const lanes: TAlertLane[] = [];
  const groups = new Map<string, { lane: TAlertLane; spans: TSpan[]; nodes: boolean }>();
  for (const a of sorted) {
    const key = groupKey(a);
    if ((sizes.get(key) ?? 0) < GROUP_AT) {
      const { severity, state } = a;
      lanes.push({
        id: a.id,
        title: a.summary || a.ruleName,
        subject: subject(a),
        severity,
        state,
        count: 1,
        spans: [spanOf(a, from)],
      });
      continue;
    }
    let g = groups.get(key);
    if (!g) {
      const lane: TAlertLane = {
        id: null,
        title: a.ruleName,
        subject: '',
        severity: a.severity,
        state: a.state,
        count: 0,
        spans: [],
      };
      groups.set(key, (g = { lane, spans: [], nodes: true }));
      lanes.push(lane);
    }
    g.lane.count++;
    g.spans.push(spanOf(a, from));
    g.nodes &&= !!(a.labels.node ?? a.labels.node_id);
  }
  for (const g of groups.values()) {
    g.lane.spans = mergeSpans(g.spans);
    g.lane.subject = `${g.lane.count} ${g.nodes ? 'nodes' : 'instances'}`;
  }
  return lanes;
}
