/**
 * The evaluator: one cycle reads every org's latest node/cgroup/agent state (and the metric windows that
 * metric rules need) in a few batched queries, evaluates rules × readings (plan.ts) and stores the
 * transitions. Its cost depends on rules and nodes, never on how many people are looking; in the web
 * process it runs on the alerting thread (thread.ts).
 */
import {
  getAlertRulesVersion,
  listAllAgentsForAlerting,
  listAllAlertRules,
  listAllClustersForAlerting,
  listLiveInstances,
  listSeenEvictions,
  saveEvaluation,
  saveSeenEvictions,
  type TAlertRuleRow,
} from '@clusterscope/db';
import {
  getAlertMetricWindows,
  getLatestCgroupsForOrgs,
  getLatestNodesForOrgs,
  type TAlertMetricRow,
} from '@clusterscope/tsdb';
import type { TAlertMetric } from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import { toInputStates } from '../health/cluster-status';
import { metricFetchKey, metricNames, parseMetric } from './metric-values';
import { planEvaluation, type TPlanCluster } from './plan';
import { BUILTIN_RULE_DEFS, ensureBuiltinRules } from './rules';
import type { TClusterReadings } from './series';

/**
 * State kept between cycles by the leader: only a cache. (Outbox eviction counters are persisted in
 * PostgreSQL, so an increase is paged once even across a leader change.)
 */
export interface TEvaluatorMemo {
  /** Every rule, as of `version` (getAlertRulesVersion): re-read only when rules changed. */
  rules?: { version: string; rows: TAlertRuleRow[] };
}
export const createEvaluatorMemo = (): TEvaluatorMemo => ({});

export interface TEvalStats {
  rules: number;
  clusters: number;
  subjects: number;
  transitions: number;
  /** Whole cycle, ms. */
  ms: number;
  /** Reading rules, instances and series (event loop, mostly waiting on the databases). */
  fetchMs: number;
  /** Evaluating rules. */
  planMs: number;
  /** Storing transitions. */
  saveMs: number;
}

/** One cycle; `clusterIds` limits it to those clusters (a nudge after their samples arrived). */
export async function evaluateAlerts(
  deps: TDeps,
  opts: {
    now?: Date;
    /** When this server started (see TPlanInput.upSince); absent: data age alone. */
    upSince?: Date;
    memo?: TEvaluatorMemo;
    clusterIds?: ReadonlySet<string>;
  } = {},
): Promise<TEvalStats> {
  const started = performance.now();
  const now = opts.now ?? new Date();
  const memo = opts.memo ?? createEvaluatorMemo();
  const scope = opts.clusterIds;
  const inScope = (clusterId: string | null) => !scope || (clusterId !== null && scope.has(clusterId));
  const clusters: TPlanCluster[] = (await listAllClustersForAlerting(deps.db))
    .filter((c) => inScope(c.id))
    .map((c) => ({ id: c.id, organizationId: c.organizationId, name: c.name, intervalS: c.intervalS }));
  const scopedOrgs = new Set(clusters.map((c) => c.organizationId));
  const listRules = async () => {
    const version = await getAlertRulesVersion(deps.db);
    if (memo.rules?.version !== version) memo.rules = { version, rows: await listAllAlertRules(deps.db) };
    return memo.rules.rows.filter((r) =>
      r.clusterId ? inScope(r.clusterId) : !scope || scopedOrgs.has(r.organizationId),
    );
  };
  let rules = await listRules();
  // Clusters missing any built-in (new clusters, or built-ins added by an upgrade) get them.
  const builtins = new Map<string, number>();
  for (const r of rules)
    if (r.builtin && r.clusterId) builtins.set(r.clusterId, (builtins.get(r.clusterId) ?? 0) + 1);
  const missing = clusters.filter((c) => (builtins.get(c.id) ?? 0) < BUILTIN_RULE_DEFS.length);
  if (missing.length && (await ensureBuiltinRules(deps, missing)) > 0) rules = await listRules();

  const orgIds = [...new Set(clusters.map((c) => c.organizationId))];
  const [nodes, cgroups, agents, seenEvictions, live, metrics] = await Promise.all([
    getLatestNodesForOrgs(deps.ch, orgIds),
    getLatestCgroupsForOrgs(deps.ch, orgIds),
    listAllAgentsForAlerting(deps.db),
    listSeenEvictions(deps.db),
    listLiveInstances(deps.db),
    fetchMetricWindows(deps, rules, clusters, now.getTime()),
  ]);

  const readings = new Map<string, TClusterReadings>();
  for (const c of clusters)
    readings.set(c.id, { nodes: [], cgroups: [], agents: [], intervalS: c.intervalS });
  const orgOf = new Map(clusters.map((c) => [c.id, c.organizationId]));
  for (const n of nodes) if (orgOf.get(n.cluster_id) === n.org_id) readings.get(n.cluster_id)?.nodes.push(n);
  for (const g of cgroups)
    if (orgOf.get(g.cluster_id) === g.org_id) readings.get(g.cluster_id)?.cgroups.push(g);
  const evictionsSeen: { agentId: string; evictions: number }[] = [];
  for (const a of agents) {
    if (!inScope(a.clusterId)) continue;
    // Evictions since the last cycle of any leader (the first sighting of an agent is its baseline; a
    // restarted agent counts from 0 again).
    const prev = seenEvictions.get(a.id);
    if (prev !== a.outboxEvictions) evictionsSeen.push({ agentId: a.id, evictions: a.outboxEvictions });
    const delta = prev === undefined ? null : Math.max(0, a.outboxEvictions - prev);
    if (a.clusterId)
      readings.get(a.clusterId)?.agents.push({
        id: a.id,
        name: a.name,
        evictionsDelta: delta,
        seenAt: a.lastSeenAt?.getTime() ?? null,
        inputs: toInputStates(a.inputs),
      });
  }
  const fetched = performance.now();

  const out = planEvaluation({
    now,
    upSince: opts.upSince,
    rules: memo.rules?.rows ?? rules,
    clusters,
    readings: [...readings],
    live: live.filter((i) => inScope(i.clusterId)),
    metrics: [...metrics].map(([k, rows]) => [k, rows.filter((r) => orgOf.get(r.cluster_id) === r.org_id)]),
  });
  const planned = performance.now();

  await saveEvaluation(deps.db, out.changes, { ids: out.stillTrue, at: now });
  // After the transitions: a leader dying in between pages those evictions again rather than never.
  await saveSeenEvictions(deps.db, evictionsSeen);
  const done = performance.now();
  return {
    rules: rules.length,
    clusters: clusters.length,
    subjects: out.subjects,
    transitions: out.changes.length,
    ms: done - started,
    fetchMs: fetched - started,
    planMs: planned - fetched,
    saveMs: done - planned,
  };
}

/** One `metrics` read per distinct (matchers, window), for the names and clusters whose rules need it. */
async function fetchMetricWindows(
  deps: TDeps,
  rules: {
    clusterId: string | null;
    organizationId: string;
    enabled: boolean;
    series: string;
    metric: unknown;
  }[],
  clusters: TPlanCluster[],
  now: number,
): Promise<Map<string, TAlertMetricRow[]>> {
  const wanted = new Map<string, { m: TAlertMetric; names: Set<string>; clusters: Set<string> }>();
  const byOrg = new Map<string, string[]>();
  for (const c of clusters) byOrg.set(c.organizationId, [...(byOrg.get(c.organizationId) ?? []), c.id]);
  const known = new Set(clusters.map((c) => c.id));
  for (const r of rules) {
    if (!r.enabled || r.series !== 'metric') continue;
    const m = parseMetric(r.metric);
    if (!m) continue;
    const k = metricFetchKey(m);
    const w = wanted.get(k) ?? { m, names: new Set<string>(), clusters: new Set<string>() };
    wanted.set(k, w);
    for (const n of metricNames(m)) w.names.add(n);
    for (const id of r.clusterId ? [r.clusterId] : (byOrg.get(r.organizationId) ?? []))
      if (known.has(id)) w.clusters.add(id);
  }
  const out = new Map<string, TAlertMetricRow[]>();
  const orgOf = new Map(clusters.map((c) => [c.id, c.organizationId]));
  await Promise.all(
    [...wanted].map(async ([k, w]) => {
      const ids = [...w.clusters];
      out.set(
        k,
        await getAlertMetricWindows(deps.ch, {
          orgIds: [...new Set(ids.map((id) => orgOf.get(id)!))],
          clusterIds: ids,
          names: [...w.names],
          matchers: w.m.matchers,
          from: now - w.m.windowS * 1000,
          to: now + 1,
        }),
      );
    }),
  );
  return out;
}
