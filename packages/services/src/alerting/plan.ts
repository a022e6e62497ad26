/**
 * The CPU-heavy half of an evaluation cycle, pure: every rule × cluster × subject stepped through the
 * state machine over readings the caller fetched (in the web process: on the alerting thread, thread.ts).
 */
import type { TAlertRuleRow, TEventWrite, TInstanceRow, TInstanceWrite } from '@clusterscope/db';
import type { TAlertMetricRow } from '@clusterscope/tsdb';
import {
  staleAfterMs,
  ZAlertSeries,
  type TAggregation,
  type TAlertComparison,
  type TAlertState,
} from '@clusterscope/schema';
import { metricFetchKey, metricSamples, parseMetric } from './metric-values';
import {
  aggregate,
  formatValue,
  renderSummary,
  samplesOf,
  type TClusterReadings,
  type TSample,
} from './series';
import { compare, INACTIVE, step, type TInstanceState } from './state';

export interface TPlanCluster {
  id: string;
  organizationId: string;
  name: string;
  intervalS: number;
}

export interface TPlanInput {
  now: Date;
  /** When this server started: staleness is judged from its uptime as well as the data's age. */
  upSince?: Date;
  /** Every rule (out-of-scope ones find no target cluster). */
  rules: TAlertRuleRow[];
  clusters: TPlanCluster[];
  readings: [string, TClusterReadings][];
  /** Instances not inactive (pending, firing, resolved). */
  live: TInstanceRow[];
  /** Rows of `metrics` per metricFetchKey (every cluster of that fetch). */
  metrics: [string, TAlertMetricRow[]][];
}

export interface TPlanOutput {
  changes: { instance: TInstanceWrite; event: TEventWrite }[];
  /** Firing/pending instances whose condition still holds (lastTrueAt = now). */
  stillTrue: string[];
  subjects: number;
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

/** Does the cluster still send fresh node or cgroup readings (so a missing subject is gone, not silent)? */
function reportsFresh(r: TClusterReadings, now: number): boolean {
  const fresh = (ts: number) => now - ts < staleAfterMs(r.intervalS);
  return r.nodes.some((n) => fresh(n.ts)) || r.cgroups.some((g) => fresh(g.ts));
}
const isSubjectKey = (k: string) => /^(node|host|agent)=/.test(k);

export function planEvaluation(input: TPlanInput): TPlanOutput {
  const started = performance.now();
  const { now, rules, clusters, live } = input;
  const t = now.getTime();
  const readings = new Map(input.readings);

  const metricRows = new Map<string, TAlertMetricRow[]>();
  for (const [fk, rows] of input.metrics)
    for (const r of rows) {
      const k = `${fk}|${r.cluster_id}`;
      const list = metricRows.get(k);
      if (list) list.push(r);
      else metricRows.set(k, [r]);
    }

  const byKey = new Map(live.map((i) => [instanceKey(i.ruleId, i.clusterId, i.key), i]));
  const liveByRuleCluster = new Map<string, TInstanceRow[]>();
  for (const i of live) {
    const k = `${i.ruleId}|${i.clusterId}`;
    const list = liveByRuleCluster.get(k);
    if (list) list.push(i);
    else liveByRuleCluster.set(k, [i]);
  }
  const clusterById = new Map(clusters.map((c) => [c.id, c]));
  const clustersByOrg = new Map<string, TPlanCluster[]>();
  for (const c of clusters) {
    const list = clustersByOrg.get(c.organizationId);
    if (list) list.push(c);
    else clustersByOrg.set(c.organizationId, [c]);
  }
  const changes: TPlanOutput['changes'] = [];
  const stillTrue: string[] = [];
  let subjects = 0;
  const sampleCache = new Map<string, TSample[]>();

  for (const rule of rules) {
    const one = rule.clusterId ? clusterById.get(rule.clusterId) : undefined;
    const targets = rule.clusterId ? (one ? [one] : []) : (clustersByOrg.get(rule.organizationId) ?? []);
    const series = ZAlertSeries.safeParse(rule.series);
    const metric = series.success && series.data === 'metric' ? parseMetric(rule.metric) : null;
    for (const c of targets) {
      const r = readings.get(c.id);
      if (!r) continue;
      let samples: TSample[] = [];
      if (rule.enabled && series.success) {
        let merged = false;
        if (metric) {
          const rows = metricRows.get(`${metricFetchKey(metric)}|${c.id}`) ?? [];
          ({ samples, merged } = metricSamples(metric, rows, rule.aggregation as TAggregation));
        } else {
          const sk = `${c.id}|${series.data}`;
          samples = sampleCache.get(sk) ?? samplesOf(series.data, r, t, input.upSince?.getTime());
          sampleCache.set(sk, samples);
        }
        if (rule.aggregation !== 'node' && !merged) {
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
      // Instances whose rule is disabled resolve. So do those whose subject disappeared (a decommissioned or
      // removed node, cgroup or agent) while the cluster still reports fresh data; metric series and
      // cluster-wide values that vanish are unknown (no data), and stay as they are.
      const gone =
        rule.enabled && series.success && !metric && rule.aggregation === 'node' && reportsFresh(r, t);
      for (const i of stored ?? []) {
        if (seen.has(i.key) || (i.state !== 'firing' && i.state !== 'pending')) continue;
        if (rule.enabled && !(gone && isSubjectKey(i.key))) continue;
        track(
          rule,
          c,
          { key: i.key, labels: i.labels as Record<string, string>, value: i.value, stale: false },
          i,
          false,
          rule.enabled ? 'subject no longer reported' : 'rule disabled',
        );
      }
    }
  }

  function track(
    rule: TAlertRuleRow,
    c: TPlanCluster,
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

  return { changes, stillTrue, subjects, ms: performance.now() - started };
}
