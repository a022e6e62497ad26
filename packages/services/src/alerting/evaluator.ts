/**
 * The evaluator: one cycle reads every org's latest node/cgroup/agent state in a few batched queries, steps
 * every rule × cluster × subject through the state machine and stores the transitions. Its cost depends on
 * rules and nodes, never on how many people are looking.
 */
import {
  listAllAgentsForAlerting,
  listAllAlertRules,
  listAllClustersForAlerting,
  listLiveInstances,
  saveEvaluation,
  type TAlertRuleRow,
  type TEventWrite,
  type TInstanceRow,
  type TInstanceWrite,
} from '@clusterscope/db';
import { getLatestCgroupsForOrgs, getLatestNodesForOrgs } from '@clusterscope/tsdb';
import {
  ZAlertSeries,
  type TAggregation,
  type TAlertComparison,
  type TAlertState,
} from '@clusterscope/schema';
import type { TDeps } from '../deps';
import { ensureBuiltinRules } from './rules';
import {
  aggregate,
  formatValue,
  renderSummary,
  samplesOf,
  type TClusterReadings,
  type TSample,
} from './series';
import { compare, INACTIVE, step, type TInstanceState } from './state';

/** State kept between cycles by the leader (outbox eviction counters: only increases page). */
export interface TEvaluatorMemo {
  evictions: Map<string, number>;
}
export const createEvaluatorMemo = (): TEvaluatorMemo => ({ evictions: new Map() });

export interface TEvalStats {
  rules: number;
  clusters: number;
  subjects: number;
  transitions: number;
  ms: number;
}

const instanceKey = (ruleId: string, clusterId: string, key: string) => `${ruleId}|${clusterId}|${key}`;

const toState = (i: TInstanceRow): TInstanceState => ({
  state: i.state as TAlertState,
  activeAt: i.activeAt,
  firedAt: i.firedAt,
  resolvedAt: i.resolvedAt,
  lastTrueAt: i.lastTrueAt,
});

/** One cycle; `clusterIds` limits it to those clusters (a nudge after their samples arrived). */
export async function evaluateAlerts(
  deps: TDeps,
  opts: { now?: Date; memo?: TEvaluatorMemo; clusterIds?: ReadonlySet<string> } = {},
): Promise<TEvalStats> {
  const started = performance.now();
  const now = opts.now ?? new Date();
  const memo = opts.memo ?? createEvaluatorMemo();
  const scope = opts.clusterIds;
  const inScope = (clusterId: string | null) => !scope || (clusterId !== null && scope.has(clusterId));
  const clusters = (await listAllClustersForAlerting(deps.db)).filter((c) => inScope(c.id));
  const scopedOrgs = new Set(clusters.map((c) => c.organizationId));
  const listRules = async () =>
    (await listAllAlertRules(deps.db)).filter((r) =>
      r.clusterId ? inScope(r.clusterId) : !scope || scopedOrgs.has(r.organizationId),
    );
  let rules = await listRules();
  const withBuiltins = new Set(rules.filter((r) => r.builtin && r.clusterId).map((r) => r.clusterId));
  const missing = clusters.filter((c) => !withBuiltins.has(c.id));
  if (missing.length && (await ensureBuiltinRules(deps, missing)) > 0) rules = await listRules();

  const orgIds = [...new Set(clusters.map((c) => c.organizationId))];
  const [nodes, cgroups, agents, live] = await Promise.all([
    getLatestNodesForOrgs(deps.ch, orgIds),
    getLatestCgroupsForOrgs(deps.ch, orgIds),
    listAllAgentsForAlerting(deps.db),
    listLiveInstances(deps.db),
  ]);

  const readings = new Map<string, TClusterReadings>();
  for (const c of clusters)
    readings.set(c.id, { nodes: [], cgroups: [], agents: [], intervalS: c.intervalS });
  const orgOf = new Map(clusters.map((c) => [c.id, c.organizationId]));
  for (const n of nodes) if (orgOf.get(n.cluster_id) === n.org_id) readings.get(n.cluster_id)?.nodes.push(n);
  for (const g of cgroups)
    if (orgOf.get(g.cluster_id) === g.org_id) readings.get(g.cluster_id)?.cgroups.push(g);
  for (const a of agents) {
    if (!inScope(a.clusterId)) continue;
    const prev = memo.evictions.get(a.id);
    memo.evictions.set(a.id, a.outboxEvictions);
    const delta = prev === undefined ? null : Math.max(0, a.outboxEvictions - prev);
    if (a.clusterId)
      readings.get(a.clusterId)?.agents.push({ id: a.id, name: a.name, evictionsDelta: delta });
  }

  const byKey = new Map(live.map((i) => [instanceKey(i.ruleId, i.clusterId, i.key), i]));
  const liveByRuleCluster = new Map<string, TInstanceRow[]>();
  for (const i of live) {
    const k = `${i.ruleId}|${i.clusterId}`;
    liveByRuleCluster.set(k, [...(liveByRuleCluster.get(k) ?? []), i]);
  }
  const clustersByOrg = new Map<string, typeof clusters>();
  for (const c of clusters)
    clustersByOrg.set(c.organizationId, [...(clustersByOrg.get(c.organizationId) ?? []), c]);
  const changes: { instance: TInstanceWrite; event: TEventWrite }[] = [];
  const stillTrue: string[] = [];
  let subjects = 0;
  const t = now.getTime();

  const sampleCache = new Map<string, TSample[]>();
  let sinceYield = 0;
  for (const rule of rules) {
    // Keep the web process responsive: give the event loop a turn every 100 rules.
    if (++sinceYield >= 100) {
      sinceYield = 0;
      await new Promise((r) => setImmediate(r));
    }
    const targets = rule.clusterId
      ? clusters.filter((c) => c.id === rule.clusterId)
      : (clustersByOrg.get(rule.organizationId) ?? []);
    const series = ZAlertSeries.safeParse(rule.series);
    for (const c of targets) {
      const r = readings.get(c.id)!;
      let samples: TSample[] = [];
      if (rule.enabled && series.success) {
        const sk = `${c.id}|${series.data}`;
        samples = sampleCache.get(sk) ?? samplesOf(series.data, r, t);
        sampleCache.set(sk, samples);
        if (rule.aggregation !== 'node') {
          const one = aggregate(samples, rule.aggregation as Exclude<TAggregation, 'node'>);
          samples = one ? [one] : [];
        }
      }
      subjects += samples.length;
      const stored = liveByRuleCluster.get(`${rule.id}|${c.id}`);
      const seen = new Set<string>();
      for (const s of samples) {
        const cond =
          s.value === null ? null : compare(s.value, rule.comparison as TAlertComparison, rule.threshold);
        // Inactive instances are not stored: nothing to do for a healthy subject without a row.
        if (!stored && cond !== true) continue;
        seen.add(s.key);
        // Stale data may keep an alert up, never bring it down.
        const effective = s.stale && cond === false ? null : cond;
        const prevRow = stored ? byKey.get(instanceKey(rule.id, c.id, s.key)) : undefined;
        if (!prevRow && effective !== true) continue;
        track(rule, c, s, prevRow, effective);
      }
      // Instances whose subject vanished, or whose rule is disabled.
      for (const i of stored ?? []) {
        if (seen.has(i.key)) continue;
        if (!rule.enabled && (i.state === 'firing' || i.state === 'pending'))
          track(
            rule,
            c,
            { key: i.key, labels: i.labels as Record<string, string>, value: i.value, stale: false },
            i,
            false,
            'rule disabled',
          );
      }
    }
  }

  function track(
    rule: TAlertRuleRow,
    c: (typeof clusters)[number],
    s: TSample,
    prevRow: TInstanceRow | undefined,
    cond: boolean | null,
    why = '',
  ) {
    const prev = prevRow ? toState(prevRow) : INACTIVE;
    const next = step(
      prev,
      cond,
      now,
      rule.keepFiringForS > 0 && !rule.enabled ? { ...rule, keepFiringForS: 0 } : rule,
    );
    if (next.state === prev.state) {
      if (cond === true && prevRow && (next.state === 'firing' || next.state === 'pending'))
        stillTrue.push(prevRow.id);
      return;
    }
    const labels = { ...(rule.labels as Record<string, string>), ...s.labels };
    const summary = renderSummary(rule.summary || rule.name, {
      ...s.vars,
      ...labels,
      cluster: c.name,
      value: formatValue(s.value),
      threshold: String(rule.threshold),
    });
    changes.push({
      instance: {
        id: prevRow?.id,
        organizationId: rule.organizationId,
        ruleId: rule.id,
        clusterId: c.id,
        key: s.key,
        labels,
        state: next.state,
        severity: rule.severity,
        summary,
        value: s.value,
        activeAt: next.activeAt,
        firedAt: next.firedAt,
        resolvedAt: next.resolvedAt,
        lastTrueAt: next.lastTrueAt,
        escalatedAt: prevRow?.escalatedAt ?? null,
      },
      event: {
        organizationId: rule.organizationId,
        kind: 'state',
        fromState: prev.state,
        toState: next.state,
        value: s.value,
        message: why || summary,
        at: now,
      },
    });
  }

  await saveEvaluation(deps.db, changes, { ids: stillTrue, at: now });
  return {
    rules: rules.length,
    clusters: clusters.length,
    subjects,
    transitions: changes.length,
    ms: performance.now() - started,
  };
}
