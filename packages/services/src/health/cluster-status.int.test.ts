/**
 * The one cluster status on the real embedded PostgreSQL and chDB: firing and silenced alerts, failing agent
 * inputs (heartbeat → Agent row → status, agents page and the built-in rule), as every page and REST answer
 * reads it.
 */
import { randomUUID } from 'node:crypto';
import {
  unpackCharts,
  type THeartbeatSample,
  type TIngestBatch,
  type TInputState,
} from '@clusterscope/schema';
import { createWriter, type TWriter } from '@clusterscope/tsdb';
import { nodeSample } from '@clusterscope/tsdb/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwnedOrg } from '@clusterscope/db/testing';
import { createSilence, listAlertInstances } from '../alerting/api';
import { createEvaluatorMemo, evaluateAlerts } from '../alerting/evaluator';
import { createAlertRule } from '../alerting/rules';
import type { TCaller } from '../tenancy/caller';
import { countFiringAlerts } from './cluster-status';
import {
  getClusterCharts,
  getClusterNodes,
  getClusterView,
  getOncall,
  listClusterHealth,
} from '../reads/dashboard';
import { ingestPrepared } from '../ingest/ingest';
import { holdInProcess } from '../ingest/ingest-pool';
import { headOf } from '../ingest/ingest-prep';
import { getAgentsPage } from '../pages/pages';
import { useTestEnv } from '../core/test-env';

const env = useTestEnv();
let writer: TWriter;
let caller: TCaller;
let orgId: string;
const INTERVAL_S = 10;

async function makeCluster(name: string) {
  return (await env.db.cluster.create({ data: { organizationId: orgId, name, intervalS: INTERVAL_S } })).id;
}

const writeLive = (clusterId: string, ids: number[], ts: number) =>
  writer.write(
    orgId,
    clusterId,
    `b-${randomUUID()}`,
    ids.map((id) => nodeSample(id, ts)),
  );

beforeAll(async () => {
  writer = createWriter(env.ch, { maxDelayMs: 0 });
  const owner = await createOwnedOrg(env.db);
  orgId = owner.orgId;
  caller = { kind: 'user', ...owner };
}, 120_000);

afterAll(async () => {
  await writer?.close();
});

const statusOf = async (clusterId: string, now: number) =>
  (await listClusterHealth(env.deps, caller, now)).find((h) => h.cluster.id === clusterId)!.status;

describe('cluster status with firing alerts', () => {
  let clusterId: string;
  let ruleId: string;
  let now: number;

  it('LIVE nodes and a firing warning: level warn, the headline names the alert, everywhere', async () => {
    clusterId = await makeCluster('prod-east');
    now = Date.now();
    await writeLive(clusterId, [1, 2, 3], now - 1000);
    const rule = await createAlertRule(env.deps, caller, {
      clusterId,
      name: 'Replicas above 50',
      series: 'node.replicas',
      comparison: 'gt',
      threshold: 50,
      severity: 'warning',
      summary: 'node {{node}} holds {{value}} replicas',
    });
    ruleId = rule.id;
    // Before the evaluation nothing fires: the old answer.
    expect(await statusOf(clusterId, now)).toMatchObject({ level: 'ok', headline: 'All 3 live' });

    await evaluateAlerts(env.deps, { now: new Date(now), memo: createEvaluatorMemo() });
    const firing = await listAlertInstances(env.deps, caller, { clusterId, state: 'firing' });
    expect(firing.map((a) => a.ruleName)).toEqual([
      'Replicas above 50',
      'Replicas above 50',
      'Replicas above 50',
    ]);

    const s = await statusOf(clusterId, now);
    expect(s.level).toBe('warn');
    expect(s.headline).toMatch(/^3 alerts firing · worst: node \d holds 100 replicas$/);
    expect(s.details).toContain('All 3 live');
    expect(s.alerts).toMatchObject({ firing: 3, silenced: 0, worst: { severity: 'warning' } });

    // The same object on the cluster header, the on-call page and the navigation badge.
    expect((await getClusterNodes(env.deps, caller, clusterId, now)).status).toEqual(s);
    const oncall = (await getOncall(env.deps, caller, now)).clusters.find((c) => c.cluster.id === clusterId)!;
    expect(oncall.status).toEqual(s);
    expect(oncall.severity).toBe('warning');
    expect(await countFiringAlerts(env.deps, caller, now)).toEqual({ firing: 3, critical: 0 });
  });

  it('a silenced alert is shown as silenced and does not raise the level', async () => {
    await createSilence(env.deps, caller, {
      clusterId,
      ruleId,
      endsAt: new Date(now + 3_600_000),
      comment: 'known: rebalancing',
    });
    const later = Date.now() + 1000; // the silence starts when it is created
    const s = await statusOf(clusterId, later);
    expect(s).toMatchObject({
      level: 'ok',
      headline: 'All 3 live',
      alerts: { firing: 0, silenced: 3, worst: null },
    });
    expect(s.details).toContain('3 silenced alerts');
    expect(await countFiringAlerts(env.deps, caller, later)).toEqual({ firing: 0, critical: 0 });
    const oncall = (await getOncall(env.deps, caller, later)).clusters.find(
      (c) => c.cluster.id === clusterId,
    )!;
    expect(oncall.severity).toBe('ok');
  });
});

describe('a failing agent input', () => {
  const hb = (ts: number, inputs: TInputState[]): THeartbeatSample => ({
    kind: 'heartbeat',
    ts,
    host: 'db-1',
    version: '0.3.0',
    uptime_s: 42,
    capabilities: [],
    outbox_bytes: 0,
    outbox_pending: 0,
    outbox_evictions: 0,
    metrics_dropped: 0,
    inputs,
  });
  const failing = (since: number, failures: number): TInputState => ({
    input: 'cockroachdb',
    state: 'failing',
    error: 'GET http://10.0.0.4:8080/_status/nodes: connect ECONNREFUSED 10.0.0.4:8080',
    since,
    failures,
  });

  it('shows by name in the status, the agents page and health/clusters; the built-in rule fires after 3 intervals', async () => {
    const clusterId = await makeCluster('input-down');
    const ingest = (clusterId: string, samples: THeartbeatSample[]) => {
      const batch: TIngestBatch = {
        batchId: `hb-${randomUUID()}`,
        cluster: clusterId,
        agent: { name: 'agent-db-1', version: '0.3.0' },
        samples,
      };
      const token: TCaller = {
        kind: 'token',
        tokenId: 't',
        orgId,
        orgSlug: 'acme',
        scopes: ['ingest'],
        clusterId,
      };
      return ingestPrepared(env.deps, token, holdInProcess(headOf(batch), batch.samples), writer);
    };
    const t0 = Date.now() - 6 * 60_000;
    const memo = createEvaluatorMemo();
    const fires = async (at: number) => {
      await evaluateAlerts(env.deps, { now: new Date(at), memo });
      const list = await listAlertInstances(env.deps, caller, { clusterId, state: 'firing' });
      return list.filter((a) => a.labels.input === 'cockroachdb');
    };
    // Two failed collections: reported, but the rule waits for the third.
    await ingest(clusterId, [hb(t0 + 10_000, [failing(t0, 2)])]);
    expect(await fires(t0 + 10_000)).toHaveLength(0);
    await ingest(clusterId, [hb(t0 + 20_000, [failing(t0, 3)])]);
    const fired = await fires(t0 + 20_000);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ ruleName: 'Agent input failing', severity: 'warning' });
    expect(fired[0].summary).toContain(
      'cockroachdb input of agent agent-db-1 in input-down failing: GET http://10.0.0.4:8080',
    );

    // Six minutes on, still failing: the status names the input, for how long and why.
    const now = t0 + 6 * 60_000;
    await ingest(clusterId, [
      hb(now, [failing(t0, 72), { input: 'heartbeat', state: 'ok', error: null, since: null, failures: 0 }]),
    ]);
    const s = await statusOf(clusterId, now);
    expect(s.level).toBe('warn');
    expect(s.headline).toBe(
      'cockroachdb input failing for 6 min: GET http://10.0.0.4:8080/_status/nodes: connect ECONNREFUSED 10.0.0.4:8080',
    );
    expect(s.details).toContain('No data yet');
    expect(s.inputs).toEqual([
      { agent: 'agent-db-1', input: 'cockroachdb', error: failing(t0, 72).error, since: t0, failures: 72 },
    ]);
    const agents = await getAgentsPage(env.deps, caller);
    const row = agents.agents.find((a) => a.name === 'agent-db-1')!;
    expect(row.inputs).toEqual([
      failing(t0, 72),
      { input: 'heartbeat', state: 'ok', error: null, since: null, failures: 0 },
    ]);
    expect(agents.health.find((h) => h.cluster.id === clusterId)!.status.inputs).toHaveLength(1);

    // Recovered: the input reads ok again and the status no longer names it.
    await ingest(clusterId, [
      hb(now + 10_000, [{ input: 'cockroachdb', state: 'ok', error: null, since: null, failures: 0 }]),
    ]);
    expect((await statusOf(clusterId, now + 10_000)).inputs).toEqual([]);
  });
});

describe('dead and decommissioned nodes', () => {
  it("totals and range charts leave out a dead node's stale counts; its row keeps them as last known", async () => {
    const clusterId = await makeCluster('nine-nodes');
    const now = Date.now();
    const deadSince = now - 21 * 60_000;
    // Three reports 10 s apart, as a live node's /_status/nodes lists every node.
    for (let k = 2; k >= 0; k--) {
      const ts = now - k * 10_000;
      await writer.write(orgId, clusterId, `b-${randomUUID()}`, [
        ...[1, 2, 3].map((id) => nodeSample(id, ts, { replicas_leaseholders: 80, ranges: 240 })),
        nodeSample(6, ts, {
          liveness: 'DEAD',
          updated_at: deadSince,
          ranges_underreplicated: 21,
          replicas_leaseholders: 150,
        }),
        nodeSample(7, ts, { liveness: 'DECOMMISSIONED', ranges_unavailable: 4, replicas_leaseholders: 60 }),
      ]);
    }
    const view = await getClusterView(
      env.deps,
      caller,
      { clusterId, from: now - 5 * 60_000, to: now + 1000, resolution: 'raw' },
      now + 1000,
    );
    expect(view.counts).toMatchObject({ ranges_underreplicated: 0, ranges_unavailable: 0, dead: 1, live: 3 });
    expect(view.status.level).toBe('bad');
    expect(view.status.headline).toBe('1 dead');
    expect(view.status.details.join(' · ')).not.toMatch(/under-replicated|unavailable range/);
    const n6 = view.nodes.find((n) => n.node_id === 6)!;
    expect(n6).toMatchObject({ state: 'DEAD', ranges_underreplicated: 21, last_known: deadSince });
    expect(view.nodes.find((n) => n.node_id === 1)!.last_known).toBeNull();
    expect(view.nodes.find((n) => n.node_id === 7)!.last_known).not.toBeNull();

    const charts = unpackCharts(view.charts!);
    // Leaseholders plot the current nodes only: they sum to 240, not 450.
    expect(charts.leaseholders.map((s) => s.name).sort()).toEqual(['n1', 'n2', 'n3']);
    const last = charts.leaseholders.map((s) => s.data.at(-1)![1] ?? 0).reduce((a, b) => a + b, 0);
    expect(last).toBe(240);
    expect(charts.ranges_underreplicated.every(([, v]) => v === 0)).toBe(true);
    expect(charts.ranges_unavailable.every(([, v]) => v === 0)).toBe(true);
    // A node's own page keeps its last known values.
    const own = await getClusterCharts(env.deps, caller, {
      clusterId,
      nodeId: 6,
      from: now - 5 * 60_000,
      to: now + 1000,
      resolution: 'raw',
    });
    expect(own.leaseholders.map((s) => s.name)).toEqual(['n6']);
  });
});
