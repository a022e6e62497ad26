import * as repo from '@clusterscope/db';
import type { TAlertRuleData, TAlertRuleRow } from '@clusterscope/db';
import {
  ALERT_SERIES,
  checkRuleMetric,
  ZAlertRuleCreate,
  ZAlertRuleUpdate,
  type TAlertMetric,
  type TAlertRule,
  type TAggregation,
  type TBuiltinRule,
  type TAlertComparison,
  type TSeverity,
} from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import { assertCan, type TCaller } from '../tenancy/caller';
import { boundClusterOf } from '../tenancy/access';
import { AppError, notFound } from '../core/errors';
import { parseInput } from './api';
import { parseMetric } from './metric-values';

type TRuleDef = Omit<TAlertRuleData, 'clusterId' | 'builtin' | 'labels' | 'metric'> & {
  builtin: TBuiltinRule;
  metric?: TAlertMetric;
};

/** The built-in rules every cluster gets (one editable row per cluster, created on first evaluation). */
export const BUILTIN_RULE_DEFS: TRuleDef[] = [
  {
    builtin: 'node_down',
    name: 'Node down',
    series: 'node.down',
    aggregation: 'node',
    comparison: 'gt',
    threshold: 0,
    forS: 60,
    severity: 'critical',
    summary: 'Node {{node}} of {{cluster}} is {{liveness}}',
  },
  {
    builtin: 'node_draining',
    name: 'Node draining or decommissioning',
    series: 'node.draining',
    aggregation: 'node',
    comparison: 'gt',
    threshold: 0,
    forS: 0,
    severity: 'info',
    summary: 'Node {{node}} of {{cluster}} is {{liveness}}',
  },
  {
    builtin: 'node_stale',
    name: 'Node stale',
    series: 'node.stale',
    aggregation: 'node',
    comparison: 'gt',
    threshold: 0,
    forS: 0,
    severity: 'warning',
    summary: 'No data from node {{node}} of {{cluster}} for 3 agent intervals',
  },
  {
    builtin: 'ranges_unavailable',
    name: 'Unavailable ranges',
    series: 'node.ranges_unavailable',
    aggregation: 'sum',
    comparison: 'gt',
    threshold: 0,
    forS: 60,
    severity: 'critical',
    summary: '{{value}} unavailable ranges in {{cluster}}',
  },
  {
    builtin: 'ranges_underreplicated',
    name: 'Under-replicated ranges',
    series: 'node.ranges_underreplicated',
    aggregation: 'sum',
    comparison: 'gt',
    threshold: 0,
    forS: 300,
    severity: 'warning',
    summary: '{{value}} under-replicated ranges in {{cluster}}',
  },
  {
    builtin: 'capacity_warning',
    name: 'Store capacity above 80 %',
    series: 'node.capacity_pct',
    aggregation: 'node',
    comparison: 'gt',
    threshold: 80,
    forS: 60,
    severity: 'warning',
    summary: 'Node {{node}} of {{cluster}} uses {{value}} % of its store capacity',
  },
  {
    builtin: 'capacity_critical',
    name: 'Store capacity above 90 %',
    series: 'node.capacity_pct',
    aggregation: 'node',
    comparison: 'gt',
    threshold: 90,
    forS: 60,
    severity: 'critical',
    summary: 'Node {{node}} of {{cluster}} uses {{value}} % of its store capacity',
  },
  {
    builtin: 'cgroup_throttled',
    name: 'cgroup CPU throttled',
    series: 'cgroup.throttled_pct',
    aggregation: 'node',
    comparison: 'gt',
    threshold: 25,
    forS: 300,
    severity: 'warning',
    summary: 'cgroup {{cgroup}} on {{host}} throttled in {{value}} % of CPU periods',
  },
  {
    builtin: 'cgroup_memory',
    name: 'cgroup memory near limit',
    series: 'cgroup.mem_pct',
    aggregation: 'node',
    comparison: 'gt',
    threshold: 90,
    forS: 300,
    severity: 'warning',
    summary: 'cgroup {{cgroup}} on {{host}} uses {{value}} % of its memory limit',
  },
  // Evaluated only for clusters whose agent scrapes /_status/vars (the metrics input); without metrics
  // their instances stay unknown: never firing, never resolving.
  {
    builtin: 'sql_latency_p99',
    name: 'SQL service latency p99 above 500 ms',
    series: 'metric',
    metric: {
      name: 'sql_service_latency',
      matchers: {},
      fn: 'quantile',
      quantile: 0.99,
      scale: 1e-6,
      windowS: 120,
    },
    aggregation: 'node',
    comparison: 'gt',
    threshold: 500,
    forS: 300,
    severity: 'warning',
    summary: 'SQL p99 latency on node {{node}} of {{cluster}} is {{value}} ms',
  },
  {
    builtin: 'txn_abort_rate',
    name: 'Transaction aborts above 50/s',
    series: 'metric',
    metric: { name: 'sql_txn_abort_count', matchers: {}, fn: 'rate', scale: 1, windowS: 120 },
    aggregation: 'sum',
    comparison: 'gt',
    threshold: 50,
    forS: 300,
    severity: 'warning',
    summary: '{{value}} transaction aborts/s in {{cluster}}',
  },
  {
    builtin: 'txn_abort_pct',
    name: 'Transaction aborts above 10 %',
    series: 'metric',
    metric: {
      name: 'sql_txn_abort_count',
      matchers: {},
      fn: 'ratio',
      per: ['sql_txn_commit_count', 'sql_txn_abort_count'],
      scale: 1,
      windowS: 120,
    },
    aggregation: 'sum',
    comparison: 'gt',
    threshold: 10,
    forS: 300,
    severity: 'warning',
    summary: '{{value}} % of transactions abort in {{cluster}}',
  },
  {
    builtin: 'outbox_evicting',
    name: 'Agent outbox evicting data',
    series: 'agent.outbox_evictions',
    aggregation: 'node',
    comparison: 'gt',
    threshold: 0,
    forS: 0,
    keepFiringForS: 600,
    severity: 'warning',
    summary: 'Agent {{agent}} in {{cluster}} evicted {{value}} outbox batches (data lost)',
  },
  {
    // The agent reports consecutive failures per input: 3 is three collection intervals in a row.
    builtin: 'input_failing',
    name: 'Agent input failing',
    series: 'agent.input_failures',
    aggregation: 'node',
    comparison: 'gte',
    threshold: 3,
    forS: 0,
    severity: 'warning',
    summary: '{{input}} input of agent {{agent}} in {{cluster}} failing: {{error}}',
  },
];

export function toAlertRule(r: TAlertRuleRow): TAlertRule {
  return {
    id: r.id,
    clusterId: r.clusterId,
    builtin: r.builtin,
    name: r.name,
    series: r.series,
    aggregation: r.aggregation as TAggregation,
    comparison: r.comparison as TAlertComparison,
    threshold: r.threshold,
    forS: r.forS,
    keepFiringForS: r.keepFiringForS,
    severity: r.severity as TSeverity,
    labels: (r.labels ?? {}) as Record<string, string>,
    summary: r.summary,
    runbookUrl: r.runbookUrl,
    enabled: r.enabled,
    metric: parseMetric(r.metric),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** Built-in rows missing for the given clusters (the evaluator calls this every cycle; cheap when none). */
export async function ensureBuiltinRules(
  deps: TDeps,
  clusters: { id: string; organizationId: string }[],
): Promise<number> {
  const rows = clusters.flatMap((c) =>
    BUILTIN_RULE_DEFS.map((d) => ({ ...d, organizationId: c.organizationId, clusterId: c.id, labels: {} })),
  );
  return repo.insertBuiltinRules(deps.db, rows);
}

async function assertClusterVisible(deps: TDeps, caller: TCaller, clusterId: string | null | undefined) {
  const bound = boundClusterOf(caller);
  if (!clusterId) {
    if (bound) throw new AppError('FORBIDDEN', 'a cluster-bound token may only manage its cluster');
    return;
  }
  if ((bound && bound !== clusterId) || !(await repo.getCluster(deps.db, caller.orgId, clusterId)))
    throw notFound(`cluster '${clusterId}'`);
}

async function loadRule(deps: TDeps, caller: TCaller, id: string) {
  const r = await repo.getAlertRule(deps.db, caller.orgId, id);
  const bound = boundClusterOf(caller);
  if (!r || (bound && r.clusterId !== bound)) throw notFound(`alert rule '${id}'`);
  return r;
}

export async function listAlertRules(deps: TDeps, caller: TCaller, q: { clusterId?: string }) {
  assertCan(caller, { alert: ['read'] });
  const bound = boundClusterOf(caller);
  if (q.clusterId) await assertClusterVisible(deps, caller, q.clusterId);
  if (q.clusterId) {
    const c = await repo.getCluster(deps.db, caller.orgId, q.clusterId);
    if (c) await ensureBuiltinRules(deps, [c]);
  }
  const rows = await repo.listAlertRules(deps.db, caller.orgId, q.clusterId ?? bound);
  return rows.filter((r) => !bound || r.clusterId === bound || r.clusterId === null).map(toAlertRule);
}

export async function getAlertRule(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { alert: ['read'] });
  return toAlertRule(await loadRule(deps, caller, id));
}

const SIGNS: Record<TAlertComparison, string> = { gt: '>', gte: '≥', lt: '<', lte: '≤', eq: '=', ne: '≠' };

/**
 * The summary of a rule saved without one: its condition and where it holds, e.g. "node.replicas > 50 on
 * node {{node}} of {{cluster}} (now {{value}})", so an alert never reads as just the rule's name.
 */
export function defaultSummary(r: {
  series: string;
  comparison: TAlertComparison;
  threshold: number;
  aggregation: TAggregation;
  metric: TAlertMetric | null;
}): string {
  const def = (ALERT_SERIES as Record<string, { subject: string; unit: string }>)[r.series];
  const unit = def?.unit ? (def.unit === '%' ? ' %' : ` ${def.unit}`) : '';
  const m = r.metric;
  const what = m
    ? m.fn === 'quantile'
      ? `p${(m.quantile ?? 0.99) * 100}(${m.name})`
      : `${m.fn}(${m.name})`
    : r.series;
  const where =
    r.aggregation !== 'node'
      ? `${r.aggregation} in {{cluster}}`
      : def?.subject === 'cgroup'
        ? 'on cgroup {{cgroup}} of {{host}}'
        : def?.subject === 'agent'
          ? r.series === 'agent.input_failures'
            ? 'on input {{input}} of agent {{agent}}'
            : 'on agent {{agent}}'
          : 'on node {{node}} of {{cluster}}';
  return `${what} ${SIGNS[r.comparison]} ${r.threshold}${unit} ${where} (now {{value}}${unit})`;
}

export async function createAlertRule(deps: TDeps, caller: TCaller, input: unknown) {
  assertCan(caller, { alert: ['configure'] });
  const v = parseInput(ZAlertRuleCreate, input);
  await assertClusterVisible(deps, caller, v.clusterId);
  const r = await repo.createAlertRule(deps.db, caller.orgId, {
    ...v,
    summary: v.summary.trim() || defaultSummary(v),
    clusterId: v.clusterId ?? null,
    builtin: null,
  });
  return toAlertRule(r);
}

export async function updateAlertRule(deps: TDeps, caller: TCaller, input: unknown) {
  assertCan(caller, { alert: ['configure'] });
  const { id, ...patch } = parseInput(ZAlertRuleUpdate, input);
  const cur = await loadRule(deps, caller, id);
  const bad = checkRuleMetric(
    patch.series ?? cur.series,
    patch.metric !== undefined ? patch.metric : cur.metric,
  );
  if (bad) throw new AppError('BAD_REQUEST', bad);
  if (patch.summary !== undefined && patch.summary.trim() === '' && !cur.builtin)
    patch.summary = defaultSummary({
      series: patch.series ?? cur.series,
      comparison: patch.comparison ?? (cur.comparison as TAlertComparison),
      threshold: patch.threshold ?? cur.threshold,
      aggregation: patch.aggregation ?? (cur.aggregation as TAggregation),
      metric: patch.metric !== undefined ? patch.metric : parseMetric(cur.metric),
    });
  const r = await repo.updateAlertRule(deps.db, caller.orgId, id, patch);
  if (!r) throw notFound(`alert rule '${id}'`);
  return toAlertRule(r);
}

/** Deletes a custom rule; built-in rules are disabled instead (they would come back). */
export async function deleteAlertRule(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { alert: ['configure'] });
  const r = await loadRule(deps, caller, id);
  if (r.builtin)
    throw new AppError(
      'BAD_REQUEST',
      `id: built-in rule '${r.builtin}' cannot be deleted; disable it instead`,
    );
  await repo.deleteAlertRule(deps.db, caller.orgId, id);
  return { id, deleted: true };
}
