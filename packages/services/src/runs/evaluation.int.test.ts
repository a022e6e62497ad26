/**
 * One evaluation per run, on real PostgreSQL and chDB: thresholds decide verdicts and alerts, the stored
 * evaluation is what the run page, runs list and report read, "expected" resets the baseline of both, and
 * a suspected regression of an agent run is confirmed (or not) by re-runs queued on the same cluster, with
 * notifications through the benchmark-alert routing to a stand-in webhook receiver on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCluster, createOrganization, updateAgentHeartbeat, type TDb } from '@clusterscope/db';
import { createRng, drawNormal } from '@clusterscope/bench';
import type { TNodeStatusSample } from '@clusterscope/schema';
import { createWriter } from '@clusterscope/tsdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TCaller } from '../tenancy/caller';
import type { TDeps } from '../core/deps';
import { enrollAgent } from '../jobs/agents';
import { createChannel, setRouting } from '../alerting/api';
import { compareRunWithBaseline, getRunPage } from './compare';
import { settleConfirmation } from './evaluation';
import { claimJob, finishJob, renewLease } from '../jobs/jobs';
import { createOutbound } from '../core/outbound';
import { findRegressionAlerts, getAlertPrecision, triageAlert } from './regression-alerts';
import { getRunReport } from './report';
import { getRunsPage } from './run-list';
import { addRunResults, addRunSamples, createRun, finishRun } from './runs';
import { getWorkloadHistory, saveThreshold } from './thresholds';
import { authenticateToken } from '../tenancy/tokens';
import { createWorkload, startWorkloadRun } from './workloads';
import { idleHeartbeat, tpcbWorkload, useTestEnv } from '../core/test-env';

// The webhook receiver is on loopback: allowed here as an operator would with OUTBOUND_ALLOW.
const env = useTestEnv(() => ({ outbound: createOutbound({ allow: '127.0.0.1/32' }) }));
let db: TDb;
let deps: TDeps;
let admin: TCaller;
let ci: TCaller;
let agent: TCaller;
let hook: Server;
const hits: { title: string; summary: string }[] = [];
const rng = createRng(11);
const HOUR = 3_600_000;
const T0 = Date.now() - 24 * HOUR;

function samplesAt(tps: number) {
  return Array.from({ length: 30 }, (_, i) => ({
    elapsed_s: i + 1,
    values: { tps: tps + 10 * drawNormal(rng) },
  }));
}

async function record(caller: TCaller, id: string, tps: number) {
  const samples = samplesAt(tps);
  await addRunSamples(deps, caller, { id, samples });
  const mean = samples.reduce((a, s) => a + s.values.tps, 0) / samples.length;
  await addRunResults(deps, caller, { id, metrics: [{ name: 'tps', value: mean }] });
}

/** A CI run of workload `ci-tpcb` on main (no confirmation asked). */
async function postCiRun(hour: number, tps: number) {
  const { id } = await createRun(deps, ci, {
    cluster: 'pg',
    workload: 'ci-tpcb',
    tool: 'pgbench',
    git: { repo: 'acme/db', branch: 'main', sha: `sha-${hour}` },
    startedAt: new Date(T0 + hour * HOUR).toISOString(),
  });
  await record(ci, id, tps);
  await finishRun(deps, ci, { id, status: 'succeeded' });
  return id;
}

/** The agent claims the oldest queued run, "runs" it at `tps` and finishes it. */
async function playNextJob(tps: number) {
  const { job } = await claimJob(deps, agent, { agent: 'a1', wait: 0, lease: 30 });
  if (!job) throw new Error('no job queued');
  await record(admin, job.id, tps);
  await finishJob(deps, agent, { id: job.id, agent: 'a1', status: 'succeeded', exitCode: 0 });
  return job.id;
}

/** A run of `tpcb` started on the cluster's agent (on main, as a dashboard lane would give it). */
async function agentRun(tps: number) {
  const s = await startWorkloadRun(deps, admin, { id: 'tpcb', cluster: 'pg' });
  await db.run.update({ where: { id: s.id }, data: { gitBranch: 'main' } });
  expect(await playNextJob(tps)).toBe(s.id);
  return s.id;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let orgId: string;
let clusterId: string;

/** Node 2's status now, as the agent would ingest it. */
async function writeNodes(liveness: 'DEAD' | 'LIVE') {
  const ts = Date.now();
  const live = liveness === 'LIVE';
  const s: TNodeStatusSample = {
    kind: 'node_status', ts, node_id: 2, address: 'n2', sql_address: '', locality: '', build: 'v1',
    started_at: T0, updated_at: ts, liveness, is_live: live, is_available: live, is_draining: false,
    membership: 'active', replicas: 10, replicas_leaders: 1, replicas_leaseholders: 1, ranges: 10,
    ranges_unavailable: live ? 0 : 3, ranges_underreplicated: live ? 0 : 5, live_bytes: 0, key_bytes: 0,
    value_bytes: 0, intent_bytes: 0, system_bytes: 0, capacity: 1e9, capacity_available: 1e9,
    capacity_used: 0, uptime_s: 10,
  }; // prettier-ignore
  const w = createWriter(env.ch);
  await w.write(orgId, clusterId, 'agent', [s]);
  await w.close();
}

const runsRow = async (id: string) =>
  (await getRunsPage(deps, admin, { limit: 100 })).runs.find((r) => r.id === id)!;

beforeAll(async () => {
  ({ db, deps } = env);
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const p = JSON.parse(body) as { title: string; alerts: { annotations: { summary: string } }[] };
      hits.push({ title: p.title, summary: p.alerts[0]!.annotations.summary });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const org = await createOrganization(db, { name: 'Acme', slug: 'acme' });
  const c = await createCluster(db, org.id, { name: 'pg' });
  orgId = org.id;
  clusterId = c.id;
  admin = { kind: 'user', userId: 'u1', orgId: org.id, orgSlug: 'acme', role: 'admin' };
  ci = { kind: 'token', tokenId: 't1', orgId: org.id, orgSlug: 'acme', clusterId: null, scopes: ['admin'] };
  const e = await enrollAgent(deps, org.id, { name: 'a1', cluster: c.id });
  agent = await authenticateToken(deps, e.token!);
  await updateAgentHeartbeat(db, e.agent.id, idleHeartbeat(['pgbench']));
  await createWorkload(deps, admin, tpcbWorkload(2));
  const ch = await createChannel(deps, admin, {
    name: 'hook',
    kind: 'webhook',
    config: { url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook` },
    secret: { hmacSecret: 'stand-in' },
  });
  await setRouting(deps, admin, { routes: [{ severity: 'warning', channelIds: [ch.id] }] });
}, 120_000);

afterAll(async () => {
  await new Promise<void>((r) => (hook ? hook.close(() => r()) : r()));
});

describe('thresholds and verdicts are one evaluation', () => {
  let workloadId: string;
  let regressed: string;

  it('a regression run is a regression on every surface and raises exactly one alert, notified at once', async () => {
    const first = await postCiRun(0, 1000);
    workloadId = (await db.run.findUniqueOrThrow({ where: { id: first } })).workloadId!;
    await saveThreshold(deps, admin, {
      workloadId,
      metric: 'tps',
      test: 'percentage',
      limit: 10,
      minSamples: 2,
    });
    for (const [h, tps] of [
      [1, 1004],
      [2, 996],
      [3, 1001],
    ])
      await postCiRun(h, tps);
    hits.length = 0;
    regressed = await postCiRun(4, 850);

    const stored = (await db.run.findUniqueOrThrow({ where: { id: regressed } })).evaluation as {
      verdict: string;
      verdicts: { metric: string; test: string; bound: number }[];
    };
    expect(stored.verdict).toBe('regression');
    const tps = stored.verdicts.find((v) => v.metric === 'tps')!;
    expect(tps.test).toBe('threshold');
    expect(tps.bound).toBeCloseTo(0.9 * 1000, -1);

    const page = await getRunPage(deps, admin, regressed);
    expect(page.comparison.verdict).toBe('regression');
    expect(page.comparison.regression).toBe(true);
    expect((await runsRow(regressed)).verdict).toBe('regression');
    const report = await getRunReport(deps, ci, regressed);
    expect(report).toMatchObject({ verdict: 'regression', regression: true, confirmation: null });
    expect(report.text).toMatch(/Precision \(last 90 days\): 0 suspected/);

    const alerts = await findRegressionAlerts(deps, admin, { runId: regressed });
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ metric: 'tps', confirmation: 'none' });
    expect(alerts[0]!.thresholdId).not.toBeNull();
    expect(hits).toHaveLength(1);
    expect(hits[0]!.title).toBe('Benchmark regression: tps');

    // The workload page agrees: the alert is there, and the chart has each run's threshold boundary.
    const h = await getWorkloadHistory(deps, admin, workloadId);
    expect(h.alerts.map((a) => a.runId)).toEqual([regressed]);
    const point = h.metrics.find((m) => m.metric === 'tps')!.points.find((p) => p.runId === regressed)!;
    expect(point.bound).toBeCloseTo(tps.bound, 6);
  });

  it('after "expected", the next run at the new level is no change and raises no alert', async () => {
    const [a] = await findRegressionAlerts(deps, admin, { runId: regressed });
    await triageAlert(deps, admin, { id: a!.id, status: 'expected' });
    const next = await postCiRun(5, 852);
    const c = await compareRunWithBaseline(deps, admin, next);
    expect(c.verdict).toBe('noise');
    expect(c.baseline.run_ids).toEqual([regressed]);
    expect((await runsRow(next)).verdict).toBe('noise');
    expect(await findRegressionAlerts(deps, admin, { runId: next })).toHaveLength(0);
    const p = await getAlertPrecision(deps, admin, workloadId);
    expect(p.byStatus.expected).toBe(1);
  });
});

describe('confirmation asked by CI (clusterscope run --confirm)', () => {
  it('a CI run asking for confirmation is suspected; its posted confirmation run confirms it and it notifies once', async () => {
    hits.length = 0;
    const { id } = await createRun(deps, ci, {
      cluster: 'pg',
      workload: 'ci-tpcb',
      tool: 'pgbench',
      git: { repo: 'acme/db', branch: 'main', sha: 'sha-confirm' },
      confirm: 1,
      startedAt: new Date(T0 + 6 * HOUR).toISOString(),
    });
    await record(ci, id, 700);
    await finishRun(deps, ci, { id, status: 'succeeded' });
    let r = await getRunReport(deps, ci, id);
    expect(r).toMatchObject({
      verdict: 'regression',
      regression: false,
      confirmation: { state: 'suspected', wanted: 1 },
    });
    expect(hits).toHaveLength(0);
    // Nothing is queued for a CI run: the CLI runs the tool again itself.
    expect(await db.run.count({ where: { confirmsRunId: id } })).toBe(0);
    const other = await createRun(deps, ci, { cluster: 'pg', workload: 'elsewhere', tool: 'pgbench' });
    await expect(
      createRun(deps, ci, { cluster: 'pg', workload: 'elsewhere', tool: 'pgbench', confirms: id }),
    ).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT', message: expect.stringMatching(/^confirms: /) });
    expect(other.id).toBeTruthy();
    const conf = await createRun(deps, ci, {
      cluster: 'pg',
      workload: 'ci-tpcb',
      tool: 'pgbench',
      git: { repo: 'acme/db', branch: 'main', sha: 'sha-confirm' },
      confirms: id,
      startedAt: new Date(T0 + 6.5 * HOUR).toISOString(),
    });
    await record(ci, conf.id, 705);
    await finishRun(deps, ci, { id: conf.id, status: 'succeeded' });
    r = await getRunReport(deps, ci, id);
    expect(r).toMatchObject({ regression: true, confirmation: { state: 'confirmed' } });
    expect(hits).toHaveLength(1);
  });
});

describe('confirmation before alerting (runs started on an agent)', () => {
  it('a suspected regression whose confirmation runs do not regress notifies nobody and is "not confirmed"', async () => {
    for (const tps of [1000, 1003, 998]) await agentRun(tps);
    hits.length = 0;
    const suspect = await agentRun(800);
    let c = await compareRunWithBaseline(deps, admin, suspect);
    expect(c.verdict).toBe('regression');
    expect(c.regression).toBe(false);
    expect(c.confirmation).toMatchObject({ state: 'suspected', wanted: 2, metrics: ['tps'] });
    expect((await runsRow(suspect)).confirmation).toBe('suspected');
    const queued = await db.run.findMany({ where: { confirmsRunId: suspect } });
    expect(queued.map((r) => [r.status, r.gitBranch, r.clusterId])).toEqual([
      ['queued', 'main', clusterId],
      ['queued', 'main', clusterId],
    ]);
    expect(await findRegressionAlerts(deps, admin, { runId: suspect })).toMatchObject([
      { metric: 'tps', confirmation: 'suspected' },
    ]);

    const conf = await playNextJob(1001);
    c = await compareRunWithBaseline(deps, admin, suspect);
    expect(c.confirmation!.state).toBe('not_confirmed');
    expect(c.confirmation!.note).toMatch(new RegExp(`confirmation run ${conf} did not regress again: tps`));
    // The confirmation run was judged against the suspect's own baseline.
    const cc = await compareRunWithBaseline(deps, admin, conf);
    expect(cc.confirms).toBe(suspect);
    expect(cc.baseline.run_ids).toEqual(
      (await compareRunWithBaseline(deps, admin, suspect)).baseline.run_ids,
    );
    await playNextJob(1002); // the second changes nothing once decided
    expect(hits).toHaveLength(0);
    expect(await findRegressionAlerts(deps, admin, { runId: suspect })).toMatchObject([
      { confirmation: 'not_confirmed' },
    ]);
    expect((await runsRow(suspect)).confirmation).toBe('not_confirmed');
    const report = await getRunReport(deps, admin, suspect);
    expect(report.regression).toBe(false);
    expect(report.verdict_words).toBe('regression (not confirmed)');
    expect(report.text).toContain(
      'Rule: A suspected regression is confirmed when the regressed metric regresses again in every confirmation run, judged by the same test against the same baseline',
    );
  });

  it('a regression that regresses again in every confirmation run notifies exactly once; an unhealthy confirmation run does not count', async () => {
    // A fresh baseline: the last test's 800 tps suspect widens its runs' spread beyond a 20% drop.
    for (const tps of [1000, 1003, 998]) await agentRun(tps);
    hits.length = 0;
    const suspect = await agentRun(790);
    expect(hits).toHaveLength(0);
    // The first confirmation run sees a node down: it does not count, and the report says why.
    const { job } = await claimJob(deps, agent, { agent: 'a1', wait: 0, lease: 30 });
    await renewLease(deps, agent, { id: job!.id, agent: 'a1', running: true });
    await record(admin, job!.id, 1000);
    await writeNodes('DEAD');
    await sleep(50);
    await finishJob(deps, agent, { id: job!.id, agent: 'a1', status: 'succeeded', exitCode: 0 });
    let c = await compareRunWithBaseline(deps, admin, suspect);
    expect(c.confirmation!.state).toBe('suspected');
    await writeNodes('LIVE');
    await sleep(1100);
    const { job: second } = await claimJob(deps, agent, { agent: 'a1', wait: 0, lease: 30 });
    await renewLease(deps, agent, { id: second!.id, agent: 'a1', running: true });
    await record(admin, second!.id, 795);
    await finishJob(deps, agent, { id: second!.id, agent: 'a1', status: 'succeeded', exitCode: 0 });
    c = await compareRunWithBaseline(deps, admin, suspect);
    expect(c.confirmation!.state).toBe('confirmed');
    expect(c.regression).toBe(true);
    expect(c.confirmation!.runs.find((r) => r.id === job!.id)).toMatchObject({
      counted: false,
      reason: expect.stringMatching(/^does not count: the cluster was unhealthy during it: node 2 was DEAD/),
    });
    expect(c.confirmation!.note).toMatch(
      /^confirmed: tps regressed again in the counted confirmation run, by \d+\.\d % on average \(floor 9\.0 %\); 1 of 2 did not count$/,
    );
    expect(hits).toHaveLength(1);
    expect(hits[0]!.summary).toMatch(/^tps 7\d\d(\.\d)? tx\/s is [\d.]+ % below the baseline/);
    await settleConfirmation(deps, admin.orgId, suspect);
    expect(hits).toHaveLength(1); // settling again notifies nobody twice
    const report = await getRunReport(deps, admin, suspect);
    expect(report).toMatchObject({ regression: true, verdict_words: 'regression (confirmed)' });
    expect(report.text).toContain('does not count: the cluster was unhealthy during it: node 2 was DEAD');
    const p = await getAlertPrecision(
      deps,
      admin,
      (await db.run.findUniqueOrThrow({ where: { id: suspect } })).workloadId!,
    );
    expect(p).toMatchObject({ suspected: 2, confirmed: 1, notConfirmed: 1 });
    expect(p.noise?.metric).toBe('tps');
  });

  it('with confirmation, a 5 % drop is suspected at the screening floor, and a chain whose mean stays under the floor is not confirmed', async () => {
    for (const tps of [1000, 1003, 998]) await agentRun(tps);
    hits.length = 0;
    const suspect = await agentRun(950);
    let c = await compareRunWithBaseline(deps, admin, suspect);
    expect(c.verdict).toBe('regression');
    expect(c.confirmation).toMatchObject({ state: 'suspected', wanted: 2, metrics: ['tps'] });
    await playNextJob(955);
    c = await compareRunWithBaseline(deps, admin, suspect);
    expect(c.confirmation!.state).toBe('suspected');
    await playNextJob(952);
    c = await compareRunWithBaseline(deps, admin, suspect);
    expect(c.confirmation!.runs.map((r) => r.regressed)).toEqual([true, true]);
    expect(c.confirmation).toMatchObject({ state: 'not_confirmed' });
    expect(c.confirmation!.note).toMatch(
      /^not confirmed: tps regressed again in all 2 counted confirmation runs, but by 4\.\d % on average, under the 6\.4 % floor$/,
    );
    expect(hits).toHaveLength(0);
  });
});
