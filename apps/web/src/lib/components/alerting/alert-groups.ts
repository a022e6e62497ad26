/**
 * One cause, one row: the alerts and on-call pages fold the instances of one rule in one cluster and one
 * state into a group ("Node stale · 5 nodes"), as notifications fold a cluster's alerts into one message.
 */
export interface TGroupable {
  clusterId: string;
  ruleId: string;
  ruleName: string;
  state: string;
  labels: Record<string, string>;
}

export interface TAlertGroup<T> {
  key: string;
  /** The rule name and how many subjects: "Node stale · 5 nodes". */
  title: string;
  items: T[];
}

/** The grouping key: cluster, rule and state (an alert moving from pending to firing changes group). */
export const groupKey = (a: TGroupable) => `${a.clusterId}\u0000${a.ruleId}\u0000${a.state}`;

const noun = (items: readonly TGroupable[]) => {
  const l = items[0]?.labels ?? {};
  const one = (l.node ?? l.node_id) ? 'node' : l.cgroup ? 'cgroup' : (l.agent ?? l.host) ? 'agent' : 'alert';
  return items.length === 1 ? one : `${one}s`;
};

/** Groups in the order of their first member (pass alerts already sorted worst first). */
export function groupAlerts<T extends TGroupable>(alerts: readonly T[]): TAlertGroup<T>[] {
  const byKey = new Map<string, TAlertGroup<T>>();
  for (const a of alerts) {
    const k = groupKey(a);
    const g = byKey.get(k);
    if (g) g.items.push(a);
    else byKey.set(k, { key: k, title: '', items: [a] });
  }
  const out = [...byKey.values()];
  for (const g of out) g.title = `${g.items[0]!.ruleName} · ${g.items.length} ${noun(g.items)}`;
  return out;
}
