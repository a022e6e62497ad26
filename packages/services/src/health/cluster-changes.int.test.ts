/**
 * Issue 41 §1: a workload set to run on cluster change runs once after the agent reports a new
 * CockroachDB build, when the cluster is healthy again; the run records the change (from → to) and is
 * compared with the runs before it. The agent's own parsers read real recordings of two versions:
 * `cockroach node status` of v22.1.6 (the product seeds) and `/_status/nodes` of v23.1.11 (node 4
 * draining, node 5 dead), then the same v23.1.11 nodes with every node LIVE again.
 */
import { readFileSync } from 'node:fs';
import { createCluster, createOrganization, updateAgentHeartbeat, type TDb } from '@clusterscope/db';
import type { TNodeStatusSample } from '@clusterscope/schema';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildNodeStatusSamples, parseNodeStatusOutput } from '@clusterscope/agent/testing';
import { enrollAgent } from '../jobs/agents';
import type { TCaller } from '../tenancy/caller';
import { checkClusterChanges } from './cluster-changes';
import { getRunPage } from '../runs/compare';
import type { TDeps } from '../core/deps';
import { ingestPrepared } from '../ingest/ingest';
import { holdInProcess } from '../ingest/ingest-pool';
import { headOf } from '../ingest/ingest-prep';
import { claimJob, finishJob, postJobOutput } from '../jobs/jobs';
import { getRunReport } from '../runs/report';
import { idleHeartbeat, tpcbWorkload, useTestEnv } from '../core/test-env';
import { authenticateToken } from '../tenancy/tokens';
import { createWorkload, startWorkloadRun } from '../runs/workloads';

const env = useTestEnv();
let db: TDb;
let deps: TDeps;
let member: TCaller;
let agent: TCaller;
let clusterId: string;
const AGENT = 'crdb-agent';
const seeds = (f: string) => readFileSync(`/work/shared/fixtures/from-seeds/${f}`, 'utf8');
const agentFixture = (f: string) =>
  readFileSync(
    new URL(`../../../../apps/agent/src/inputs/cockroachdb/fixtures/${f}`, import.meta.url),
    'utf8',
  );
const PGBENCH = readFileSync(new URL('../../../bench/fixtures/pgbench_tpcb.txt', import.meta.url), 'utf8');

let batch = 0;
/** What the agent sends: its node_status samples in one batch through the ingest path. */
async function report(samples: TNodeStatusSample[]) {
  const b = { batchId: `batch-${++batch}-xxxxxxxx`, cluster: clusterId, samples };
  await ingestPrepared(deps, agent, holdInProcess(headOf(b), b.samples));
}

/** Runs a queued run on the agent with a recorded pgbench output. */
async function runOnAgent(id: string) {
  const { job } = await claimJob(deps, agent, { agent: AGENT, wait: 0, lease: 30 });
  expect(job?.id).toBe(id);
  await postJobOutput(deps, agent, { id, agent: AGENT, output: PGBENCH });
  await finishJob(deps, agent, { id, agent: AGENT, status: 'succeeded', exitCode: 0 });
}

const queued = () => db.run.findMany({ where: { status: 'queued' } });

beforeAll(async () => {
  ({ db, deps } = env);
  const org = await createOrganization(db, { name: 'Acme', slug: 'acme' });
  member = { kind: 'user', userId: 'u2', orgId: org.id, orgSlug: 'acme', role: 'member' };
  clusterId = (await createCluster(db, org.id, { name: 'crdb' })).id;
  const r = await enrollAgent(deps, org.id, { name: AGENT, cluster: 'crdb' });
  agent = await authenticateToken(deps, r.token!);
  await updateAgentHeartbeat(db, r.agent.id, idleHeartbeat(['pgbench']));
  await createWorkload(deps, member, { ...tpcbWorkload(2), changeClusterIds: ['crdb'] });
});

describe('runs on cluster change', () => {
  const before: string[] = [];
  let changeRun: string;

  it('the first sighting of a cluster records its builds and starts nothing', async () => {
    const t0 = Date.now();
    const v22 = parseNodeStatusOutput(seeds('cockroach_node_status.txt'), t0);
    expect([...new Set(v22.map((n) => n.build))]).toEqual(['v22.1.6']);
    await report(v22.map((n) => ({ ...n, ts: t0 })));
    expect(await checkClusterChanges(deps)).toEqual([]);
    expect((await db.clusterBuild.findUnique({ where: { clusterId } }))?.builds).toEqual({
      1: 'v22.1.6',
      2: 'v22.1.6',
      3: 'v22.1.6',
    });
    // Two runs from the dashboard on v22.1.6: the runs before the change.
    for (let i = 0; i < 2; i++) {
      const { id } = await startWorkloadRun(deps, member, { id: 'tpcb', cluster: 'crdb' });
      await runOnAgent(id);
      before.unshift(id);
    }
    expect(await checkClusterChanges(deps)).toEqual([]);
    expect(await queued()).toEqual([]);
  });

  it('a new build on the nodes opens a change that waits while the cluster is unhealthy', async () => {
    const nodes = JSON.parse(agentFixture('status-nodes.json'));
    const t = Date.now();
    const v23 = buildNodeStatusSamples(nodes, undefined, t);
    expect(v23.map((n) => [n.node_id, n.build, n.liveness])).toEqual([
      [1, 'v23.1.11', 'LIVE'],
      [2, 'v23.1.11', 'LIVE'],
      [3, 'v23.1.11', 'LIVE'],
      [4, 'v23.1.11', 'DRAINING'],
      [5, 'v23.1.11', 'DEAD'],
    ]);
    await report(v23);
    const [pass] = await checkClusterChanges(deps, new Date(t));
    expect(pass).toMatchObject({ fromTag: 'v22.1.6', toTag: 'v23.1.11', runIds: [] });
    expect(pass!.waiting).toMatch(
      /^waiting for the cluster to be healthy: node 4 is DRAINING; node 5 is DEAD/,
    );
    const change = await db.clusterChange.findFirstOrThrow({ where: { clusterId } });
    expect(change).toMatchObject({ nodeIds: [1, 2, 3], firedAt: null, detectedAt: new Date(t) });
    expect(await queued()).toEqual([]);
  });

  it('once every node is LIVE again the workload runs once, labelled with the change', async () => {
    const nodes = JSON.parse(agentFixture('status-nodes.json'));
    // The same v23.1.11 nodes a minute later: node 4 done draining, node 5 back, its 2 unavailable
    // ranges available again.
    nodes.livenessByNodeId = { 1: 3, 2: 3, 3: 3, 4: 3, 5: 3 };
    const t = Date.now();
    await report(buildNodeStatusSamples(nodes, undefined, t).map((n) => ({ ...n, ranges_unavailable: 0 })));
    // Someone runs the workload from the dashboard on the new build first: not a run before the change.
    const { id: after } = await startWorkloadRun(deps, member, { id: 'tpcb', cluster: 'crdb' });
    await runOnAgent(after);
    const [pass] = await checkClusterChanges(deps, new Date(t));
    expect(pass).toMatchObject({ fromTag: 'v22.1.6', toTag: 'v23.1.11', waiting: null });
    expect(pass!.runIds).toHaveLength(1);
    changeRun = pass!.runIds[0]!;
    // Later passes start nothing more.
    expect(await checkClusterChanges(deps)).toEqual([]);
    const q = await queued();
    expect(q.map((r) => r.id)).toEqual([changeRun]);
    expect(q[0]!.labels).toMatchObject({
      trigger: 'change',
      change_from: 'v22.1.6',
      change_to: 'v23.1.11',
    });
  });

  it('the change run is compared with the runs before the change, and the report says so', async () => {
    await runOnAgent(changeRun);
    const page = await getRunPage(deps, member, changeRun);
    expect(page.comparison.baseline).toMatchObject({
      branch: 'dashboard',
      lane: true,
      run_ids: before,
      change: { from: 'v22.1.6', to: 'v23.1.11' },
    });
    expect(page.comparison.verdicts.length).toBeGreaterThan(0);
    const report = await getRunReport(deps, member, changeRun);
    expect(report.baseline_note).toMatch(
      /^Baseline: dashboard \(last 2 runs\), the latest succeeded runs of this workload on this cluster before the build change v22\.1\.6 → v23\.1\.11 seen at .* that started this run\.$/,
    );
  });

  it('a rollback is a change too', async () => {
    const t = Date.now();
    const v22 = parseNodeStatusOutput(seeds('cockroach_node_status.txt'), t);
    await report(v22.map((n) => ({ ...n, ts: t })));
    const nodes = JSON.parse(agentFixture('status-nodes.json'));
    // Nodes 4 and 5 still report v23.1.11 (and node 5 is dead): the change waits for one build.
    const mixed = buildNodeStatusSamples(nodes, undefined, t)
      .filter((n) => n.node_id >= 4)
      .map((n) => ({
        ...n,
        liveness: 'LIVE' as const,
        is_live: true,
        is_available: true,
        ranges_unavailable: 0,
      }));
    await report(mixed);
    const [pass] = await checkClusterChanges(deps, new Date(t));
    expect(pass).toMatchObject({ fromTag: 'v23.1.11', toTag: 'v22.1.6', runIds: [] });
    expect(pass!.waiting).toBe('waiting for every node to run one build (nodes report v22.1.6 and v23.1.11)');
  });
});
