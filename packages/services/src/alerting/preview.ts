/**
 * Rule preview (as Grafana's "Preview alerts"): a rule's condition over the same latest readings the
 * evaluator reads, before the rule is saved, so a rule that would fire everywhere is seen as such.
 */
import { listAllAgentsForAlerting, listClusters } from '@clusterscope/db';
import {
  ALERT_SERIES,
  PREVIEW_MAX_SUBJECTS,
  ZAlertRulePreviewInput,
  type TAggregation,
  type TAlertComparison,
  type TAlertRulePreview,
} from '@clusterscope/schema';
import { getAlertMetricWindows, getLatestCgroupsForOrgs, getLatestNodesForOrgs } from '@clusterscope/tsdb';
import { canSeeCluster } from '../tenancy/access';
import { assertCan, type TCaller } from '../tenancy/caller';
import { toInputStates } from '../health/cluster-status';
import type { TDeps } from '../core/deps';
import { notFound } from '../core/errors';
import { parseInput } from './api';
import { metricNames, metricSamples } from './metric-values';
import { aggregate, samplesOf, type TClusterReadings, type TSample } from './series';
import { compare } from './state';

/** The rule's current value per subject (node, cgroup, agent, or the cluster when aggregated) and where it would fire. */
export async function previewAlertRule(
  deps: TDeps,
  caller: TCaller,
  input: unknown,
  now: number = Date.now(),
): Promise<TAlertRulePreview> {
  assertCan(caller, { alert: ['read'] });
  const v = parseInput(ZAlertRulePreviewInput, input);
  const clusters = (await listClusters(deps.db, caller.orgId)).filter(
    (c) => canSeeCluster(caller, c.id) && (!v.clusterId || c.id === v.clusterId),
  );
  if (v.clusterId && clusters.length === 0) throw notFound(`cluster '${v.clusterId}'`);
  const ids = new Set(clusters.map((c) => c.id));
  const metric = v.series === 'metric' ? v.metric : null;
  const [nodes, cgroups, agents, rows] = await Promise.all([
    getLatestNodesForOrgs(deps.ch, [caller.orgId]),
    getLatestCgroupsForOrgs(deps.ch, [caller.orgId]),
    listAllAgentsForAlerting(deps.db, caller.orgId),
    metric
      ? getAlertMetricWindows(deps.ch, {
          orgIds: [caller.orgId],
          clusterIds: [...ids],
          names: metricNames(metric),
          matchers: metric.matchers,
          from: now - metric.windowS * 1000,
          to: now + 1,
        })
      : [],
  ]);
  const subjects: TAlertRulePreview['subjects'] = [];
  for (const c of clusters) {
    const r: TClusterReadings = {
      nodes: nodes.filter((n) => n.org_id === caller.orgId && n.cluster_id === c.id),
      cgroups: cgroups.filter((g) => g.org_id === caller.orgId && g.cluster_id === c.id),
      // Eviction deltas need the evaluator's last count: none in a preview.
      agents: agents
        .filter((a) => a.clusterId === c.id)
        .map((a) => ({
          id: a.id,
          name: a.name,
          evictionsDelta: null,
          seenAt: a.lastSeenAt?.getTime() ?? null,
          inputs: toInputStates(a.inputs),
        })),
      intervalS: c.intervalS,
    };
    let samples: TSample[];
    let merged = false;
    if (metric)
      ({ samples, merged } = metricSamples(
        metric,
        rows.filter((x) => x.org_id === caller.orgId && x.cluster_id === c.id),
        v.aggregation as TAggregation,
      ));
    else samples = samplesOf(v.series, r, now);
    if (v.aggregation !== 'node' && !merged) {
      const one = aggregate(samples, v.aggregation as Exclude<TAggregation, 'node'>);
      samples = one ? [one] : [];
    }
    for (const s of samples)
      subjects.push({
        clusterId: c.id,
        clusterName: c.name,
        labels: s.labels,
        value: s.value,
        stale: s.stale,
        fires: s.value !== null && compare(s.value, v.comparison as TAlertComparison, v.threshold),
      });
  }
  const firing = subjects.filter((s) => s.fires).length;
  subjects.sort((a, b) => Number(b.fires) - Number(a.fires));
  return {
    unit: ALERT_SERIES[v.series].unit,
    total: subjects.length,
    firing,
    subjects: subjects.slice(0, PREVIEW_MAX_SUBJECTS),
  };
}
