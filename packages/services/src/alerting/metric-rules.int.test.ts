/**
 * Alert rules over Prometheus metrics with real parts: embedded PostgreSQL and chDB fed through the
 * ingest writer. The built-in SQL latency p99 and abort rules evaluate only clusters that have metrics;
 * custom rules use label matchers, rates and quantiles; validation names the field. Clock simulated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type TDb } from '@clusterscope/db';
import type { TMetricSample, TSample } from '@clusterscope/schema';
import { createWriter, type TWriter } from '@clusterscope/tsdb';
import { nodeSample as node, openTempClickHouse } from '@clusterscope/tsdb/testing';
import { createOwnedOrg, createTestDatabase } from '@clusterscope/db/testing';
import type { TCaller } from '../tenancy/caller';
import type { TDeps } from '../core/deps';
import { createEvaluatorMemo, evaluateAlerts } from './evaluator';
import { createAlertRule, updateAlertRule, listAlertRules } from './rules';

let db: TDb;
let deps: TDeps;
let writer: TWriter;
let cleanupCh: () => Promise<void>;
let caller: TCaller;
let withMetrics: string;
let without: string;

const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);
const S = 10_000;

beforeAll(async () => {
  db = createDb(await createTestDatabase());
  const ch = await openTempClickHouse();
  cleanupCh = ch.cleanup;
  writer = createWriter(ch.ch, { maxDelayMs: 0 });
  deps = { db, ch: ch.ch, origin: 'http://app.test' };
  const owner = await createOwnedOrg(db);
  const mk = async (name: string) =>
    (await db.cluster.create({ data: { organizationId: owner.orgId, name, intervalS: 10 } })).id;
  withMetrics = await mk('with-metrics');
  without = await mk('no-metrics');
  caller = { kind: 'user', ...owner };
}, 120_000);

afterAll(async () => {
  await writer?.close();
  await cleanupCh?.();
  await db?.$disconnect();
});

const metric = (k: number, n: number, name: string, value: number, labels: Record<string, string> = {}) =>
  ({
    kind: 'metric',
    ts: T0 + k * S,
    node_id: n,
    host: `h${n}`,
    name,
    type: 'counter',
    labels,
    value,
  }) satisfies TMetricSample;

/**
 * Per 10 s: node 1 answers 100 statements, 10 ≤ 100 ms, 20 ≤ 500 ms, 50 ≤ 1 s, all ≤ 2 s (p99 1980 ms);
 * node 2 answers 100, all ≤ 100 ms (p99 99 ms). Commits 90/s and 100/s, aborts 30/s each while
 * `aborting` (60/s, 24 % of 250 txn/s), else 0. HTTP-like requests_total: node 1 has 5/s code=500.
 */
function scrape(k: number, aborting: (k: number) => boolean): TSample[] {
  const LE = ['1e+08', '5e+08', '1e+09', '2e+09', '+Inf'];
  const per1 = [10, 20, 50, 100, 100];
  const aborts = (i: number) => {
    let n = 0;
    for (let j = 1; j <= i; j++) if (aborting(j)) n += 300;
    return n;
  };
  const out: TSample[] = [node(1, T0 + k * S), node(2, T0 + k * S)];
  LE.forEach((le, i) => {
    out.push(metric(k, 1, 'sql_service_latency_bucket', per1[i]! * k, { le }));
    out.push(metric(k, 2, 'sql_service_latency_bucket', 100 * k, { le }));
  });
  out.push(metric(k, 1, 'sql_txn_commit_count', 900 * k), metric(k, 2, 'sql_txn_commit_count', 1000 * k));
  out.push(metric(k, 1, 'sql_txn_abort_count', aborts(k)), metric(k, 2, 'sql_txn_abort_count', aborts(k)));
  out.push(
    metric(k, 1, 'requests_total', 50 * k, { code: '500' }),
    metric(k, 1, 'requests_total', 500 * k, { code: '200' }),
    metric(k, 2, 'requests_total', 500 * k, { code: '200' }),
  );
  return out;
}

async function instances(clusterId: string) {
  const rows = await db.alertInstance.findMany({ where: { clusterId }, include: { rule: true } });
  return rows.map((i) => ({
    rule: i.rule.builtin ?? i.rule.name,
    key: i.key,
    state: i.state,
    value: i.value,
  }));
}
const find = (xs: Awaited<ReturnType<typeof instances>>, rule: string, key = '') =>
  xs.find((x) => x.rule === rule && x.key === key);

describe('metric alert rules', () => {
  const memo = createEvaluatorMemo();
  const at = (k: number) => new Date(T0 + k * S + 1000);
  const aborting = (k: number) => k <= 12;

  it('rejects bad metric rules naming the field (the REST and UI schema)', async () => {
    const base = { name: 'm', series: 'metric', comparison: 'gt', threshold: 1, severity: 'warning' };
    const msg = async (input: unknown) =>
      createAlertRule(deps, caller, input).then(
        () => 'accepted',
        (e: Error) => e.message,
      );
    expect(await msg(base)).toBe('metric: required when series is metric');
    expect(await msg({ ...base, metric: { name: 'x', fn: 'quantile' } })).toBe(
      'metric.quantile: required for fn quantile',
    );
    expect(await msg({ ...base, metric: { name: 'x y', fn: 'rate' } })).toMatch(/^metric\.name: /);
    expect(await msg({ ...base, series: 'node.down', metric: { name: 'x', fn: 'rate' } })).toBe(
      'metric: only for series metric',
    );
    const plain = await createAlertRule(deps, caller, { ...base, series: 'node.down' });
    await expect(updateAlertRule(deps, caller, { id: plain.id, series: 'metric' })).rejects.toThrow(
      'metric: required when series is metric',
    );
    await db.alertRule.delete({ where: { id: plain.id } });
  });

  it('evaluates the built-in p99 and abort rules and custom metric rules from real chDB values', async () => {
    // Custom: 5xx rate per node (matcher code=500) and the cluster's p50 latency in ms (merged buckets).
    await createAlertRule(deps, caller, {
      name: '5xx rate',
      clusterId: withMetrics,
      series: 'metric',
      metric: { name: 'requests_total', matchers: { code: '500' }, fn: 'rate' },
      aggregation: 'node',
      comparison: 'gt',
      threshold: 1,
      severity: 'warning',
    });
    await createAlertRule(deps, caller, {
      name: 'cluster p50',
      series: 'metric',
      metric: { name: 'sql_service_latency', fn: 'quantile', quantile: 0.5, scale: 1e-6 },
      aggregation: 'avg',
      comparison: 'gt',
      threshold: 50,
      severity: 'info',
    });
    for (let k = 0; k <= 12; k++)
      await writer.write(caller.orgId, withMetrics, `m-${k}`, scrape(k, aborting));
    for (let k = 0; k <= 12; k++)
      await writer.write(caller.orgId, without, `n-${k}`, [node(1, T0 + k * S), node(2, T0 + k * S)]);

    await evaluateAlerts(deps, { now: at(12), memo });
    const a = await instances(withMetrics);
    // Built-ins wait 5 min (pending); values from SQL over the last 120 s.
    expect(find(a, 'sql_latency_p99', 'node=1')).toMatchObject({ state: 'pending' });
    expect(find(a, 'sql_latency_p99', 'node=1')!.value).toBeCloseTo(1980, 0);
    expect(find(a, 'sql_latency_p99', 'node=2')).toBeUndefined(); // 99 ms: healthy, not stored
    expect(find(a, 'txn_abort_rate')).toMatchObject({ state: 'pending' });
    expect(find(a, 'txn_abort_rate')!.value).toBeCloseTo(60, 6);
    expect(find(a, 'txn_abort_pct')!.value).toBeCloseTo(24, 6);
    // Custom rules fire at once (for: 0): only node 1 serves 5xx; the merged p50 is 100 ms × 100/110.
    expect(find(a, '5xx rate', 'node=1')).toMatchObject({ state: 'firing', value: 5 });
    expect(find(a, '5xx rate', 'node=2')).toBeUndefined();
    expect(find(a, 'cluster p50')!.value).toBeCloseTo(1e8 / 1.1 / 1e6, 6);
    // No metrics: unknown, nothing at all for the metric rules.
    expect(await instances(without)).toEqual([]);

    // Built-ins are editable per cluster: for 0 → firing on the next cycle.
    const rules = await listAlertRules(deps, caller, { clusterId: withMetrics });
    for (const b of ['sql_latency_p99', 'txn_abort_rate', 'txn_abort_pct'])
      await updateAlertRule(deps, caller, { id: rules.find((r) => r.builtin === b)!.id, forS: 0 });
    await evaluateAlerts(deps, { now: at(12), memo });
    const b = await instances(withMetrics);
    for (const r of ['txn_abort_rate', 'txn_abort_pct'])
      expect(find(b, r)).toMatchObject({ state: 'firing' });
    expect(find(b, 'sql_latency_p99', 'node=1')).toMatchObject({ state: 'firing' });
  });

  it('a cluster whose metrics stop stays as it was (unknown never resolves); fresh healthy metrics resolve', async () => {
    // 10 minutes later with no metrics in the window: nothing changes.
    await evaluateAlerts(deps, { now: at(72), memo });
    const c = await instances(withMetrics);
    expect(find(c, 'txn_abort_rate')).toMatchObject({ state: 'firing' });
    expect(find(c, 'sql_latency_p99', 'node=1')).toMatchObject({ state: 'firing' });
    // Metrics again, aborts stopped: the abort rules resolve, the slow node keeps firing.
    for (let k = 60; k <= 72; k++)
      await writer.write(caller.orgId, withMetrics, `m-${k}`, scrape(k, aborting));
    await evaluateAlerts(deps, { now: at(72), memo });
    const d = await instances(withMetrics);
    expect(find(d, 'txn_abort_rate')).toMatchObject({ state: 'resolved', value: 0 });
    expect(find(d, 'txn_abort_pct')).toMatchObject({ state: 'resolved', value: 0 });
    expect(find(d, 'sql_latency_p99', 'node=1')).toMatchObject({ state: 'firing' });
  });
});
