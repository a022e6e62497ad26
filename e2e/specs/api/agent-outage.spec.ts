/**
 * Issue #3 acceptance: the real agent against a separate real app instance. The app is stopped for more
 * than 5 intervals while the agent keeps collecting, then restarted on the same data dir; later the agent
 * is kill -9'd after the app committed a batch but before the answer reached it. Afterwards ClickHouse
 * (read from the chDB dir once the app exited) holds every collected sample exactly once.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { PORT } from '../../playwright.config';
import {
  adminTokenFor,
  buildAgentDist,
  countStored,
  createCluster,
  createIngestToken,
  enqueuedSamples,
  scrapeMetrics,
  spawnAgent,
  startCockroach,
  startIngestProxy,
  writeAgentConfigIn,
  type AgentProcess,
  type TIngestProxy,
  type TStoredCounts,
} from '../../fixtures/agent';
import { launch, waitFor, waitHealthy, type TLaunched } from '../../fixtures/launch';

const APP_PORT = PORT + 1;
const METRICS_PORT = PORT + 3;
const INTERVAL_MS = 1000;
const uid = () => randomBytes(4).toString('hex');

const apps: TLaunched[] = [];
const agents: AgentProcess[] = [];
const cleanup: string[] = [];
let cockroach: Awaited<ReturnType<typeof startCockroach>> | undefined;

async function startApp(dataDir?: string): Promise<TLaunched> {
  const app = launch({}, { port: APP_PORT, dataDir });
  apps.push(app);
  return waitHealthy(app);
}

async function stopApp(app: TLaunched): Promise<void> {
  app.child.kill('SIGINT');
  const code = await Promise.race([app.exited, new Promise((r) => setTimeout(() => r('timeout'), 60_000))]);
  expect(code, `app did not stop on SIGINT:\n${app.output().slice(-2000)}`).not.toBe('timeout');
}

async function stopAgent(a: AgentProcess): Promise<void> {
  a.child.kill('SIGTERM');
  const code = await Promise.race([a.exited, new Promise((r) => setTimeout(() => r('timeout'), 20_000))]);
  expect(code).toBe(0);
}

/** After the daemon stopped: `--once` on the same outbox delivers whatever is left (exit 0 = nothing pending). */
async function flush(agentJs: string, cfg: string): Promise<AgentProcess> {
  const once = spawnAgent(agentJs, ['--once', '--config', cfg]);
  agents.push(once);
  expect(await once.exited).toBe(0);
  return once;
}

/** Has the proxy drop the next batch at `hook` and kill -9 the agent; the batch id once it died. */
async function killAtBatch(
  proxy: TIngestProxy,
  hook: 'beforeReply' | 'beforeForward',
  a: AgentProcess,
): Promise<string> {
  let batch = '';
  proxy[hook] = (batchId) => {
    if (batch) return true;
    batch = batchId;
    a.child.kill('SIGKILL');
    return false;
  };
  expect(await a.exited).toBeNull(); // killed by a signal
  proxy[hook] = undefined;
  return batch;
}

const total = (c: TStoredCounts) => Object.values(c).reduce((s, t) => s + t.rows, 0);
const duplicates = (c: TStoredCounts) => Object.values(c).reduce((s, t) => s + t.rows - t.keys, 0);

test.afterAll(async () => {
  for (const a of agents)
    if (a.child.exitCode === null && a.child.signalCode === null) a.child.kill('SIGKILL');
  for (const app of apps) {
    if (app.child.exitCode === null && app.child.signalCode === null) {
      app.child.kill('SIGINT');
      await Promise.race([app.exited, new Promise((r) => setTimeout(r, 30_000))]);
    }
  }
  await cockroach?.close();
  for (const dir of new Set([...apps.map((a) => a.dataDir), ...cleanup]))
    fs.rmSync(dir, { recursive: true, force: true });
});

test('no sample lost or duplicated across an app outage and a kill -9 mid-send', async () => {
  test.setTimeout(420_000);
  const { agentJs } = buildAgentDist();
  cockroach = await startCockroach();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-e2e-outage-'));
  cleanup.push(work);
  const base = `http://127.0.0.1:${APP_PORT}`;

  let app = await startApp();
  const dataDir = app.dataDir;
  const admin = adminTokenFor(dataDir, `outage-${uid()}`);
  const outageCluster = await createCluster(base, admin, `outage-${uid()}`);
  const killCluster = await createCluster(base, admin, `kill-${uid()}`);
  const outageToken = await createIngestToken(base, admin, outageCluster.id, 'outage');
  const killToken = await createIngestToken(base, admin, killCluster.id, 'kill');

  // ── Phase 1: the app is down for ≥ 5 intervals while the agent keeps collecting. ──
  const cfg1 = writeAgentConfigIn(work, 'outage', {
    url: base,
    token: outageToken.token,
    cockroachUrl: cockroach.url,
    intervalMs: INTERVAL_MS,
    metricsPort: METRICS_PORT,
  });
  const agent = spawnAgent(agentJs, ['--config', cfg1]);
  agents.push(agent);
  const delivered = () => agent.logs().filter((l) => l.msg === 'batch delivered').length;
  const enqueued = () => enqueuedSamples(agent.logs()).batches.length;
  await waitFor(() => delivered() >= 3, 30_000, 'first batches delivered');

  const downAt = Date.now();
  await stopApp(app);
  const atStop = enqueued();
  await waitFor(() => enqueued() >= atStop + 6, 30_000, '6 intervals collected while the app is down');
  const m0 = await scrapeMetrics(METRICS_PORT);
  expect(m0.get('clusterscope_agent_outbox_pending_batches')).toBeGreaterThanOrEqual(5);
  expect(agent.logs().some((l) => l.msg === 'ingest failed, will retry')).toBe(true);

  app = await startApp(dataDir);
  const downMs = Date.now() - downAt;
  const collectedWhileDown = enqueued() - atStop;
  await waitFor(
    async () => {
      const m = await scrapeMetrics(METRICS_PORT);
      return (
        m.get('clusterscope_agent_outbox_pending_batches') === 0 &&
        m.get('clusterscope_agent_batches_sent_total') === m.get('clusterscope_agent_batches_enqueued_total')
      );
    },
    60_000,
    'the outbox to drain after the restart',
  );
  const m1 = await scrapeMetrics(METRICS_PORT);
  const collectedByMetrics = [...m1.entries()]
    .filter(([k]) => k.startsWith('clusterscope_agent_samples_collected_total{'))
    .reduce((s, [, v]) => s + v, 0);
  expect(m1.get('clusterscope_agent_batches_quarantined_total') ?? 0).toBe(0);
  await stopAgent(agent);
  const rest1 = await flush(agentJs, cfg1);
  const outage = {
    batches: enqueuedSamples(agent.logs()).batches.length + enqueuedSamples(rest1.logs()).batches.length,
    samples: enqueuedSamples(agent.logs()).samples + enqueuedSamples(rest1.logs()).samples,
  };
  expect(enqueuedSamples(agent.logs()).samples).toBeGreaterThanOrEqual(collectedByMetrics);

  // ── Phase 2: kill -9 after the app committed a batch, before the agent got the answer. ──
  const proxy = await startIngestProxy(base);
  const cfg2 = writeAgentConfigIn(work, 'kill', {
    url: proxy.url,
    token: killToken.token,
    cockroachUrl: cockroach.url,
    intervalMs: INTERVAL_MS,
  });
  const first = spawnAgent(agentJs, ['--config', cfg2]);
  agents.push(first);
  await waitFor(() => proxy.forwarded.size >= 3, 30_000, 'first batches through the proxy');
  const killedBatch = await killAtBatch(proxy, 'beforeReply', first);
  expect(proxy.forwarded.get(killedBatch)).toBe(1); // committed by the app, never acknowledged

  const second = spawnAgent(agentJs, ['--config', cfg2]);
  agents.push(second);
  expect(
    (await waitForLog(second, 'outbox has pending batches; replaying in order')).pending,
  ).toBeGreaterThanOrEqual(1);
  await waitFor(() => enqueuedSamples(second.logs()).batches.length >= 3, 30_000, 'collection after restart');
  await waitFor(() => proxy.forwarded.get(killedBatch) === 2, 30_000, 'the killed batch resent');

  // kill -9 again while a send is in flight that the app never received.
  const lostBatch = await killAtBatch(proxy, 'beforeForward', second);
  expect(proxy.forwarded.has(lostBatch)).toBe(false);
  const third = spawnAgent(agentJs, ['--config', cfg2]);
  agents.push(third);
  await waitFor(
    () => enqueuedSamples(third.logs()).batches.length >= 3,
    30_000,
    'collection after 2nd restart',
  );
  await stopAgent(third);
  const rest2 = await flush(agentJs, cfg2);
  expect(proxy.forwarded.get(lostBatch)).toBe(1); // delivered once, by the restarted agent
  const killRuns = [first, second, third, rest2];
  const kill = {
    batches: killRuns.flatMap((a) => enqueuedSamples(a.logs()).batches),
    samples: killRuns.reduce((s, a) => s + enqueuedSamples(a.logs()).samples, 0),
  };
  expect(kill.batches.filter((id) => !proxy.forwarded.has(id))).toEqual([]);
  expect(proxy.forwarded.get(killedBatch)).toBe(2); // resent with the same batchId after the restart
  expect(
    second.logs().some((l) => l.msg === 'batch delivered' && l.batchId === killedBatch && l.duplicate),
  ).toBe(true);
  await proxy.close();

  await stopApp(app);
  const storedOutage = countStored(dataDir, outageCluster.id);
  const storedKill = countStored(dataDir, killCluster.id);
  const report = {
    outage: { downMs, collectedWhileDown, collected: outage.samples, batches: outage.batches, stored: total(storedOutage), duplicated: duplicates(storedOutage), tables: storedOutage },
    kill: { collected: kill.samples, batches: kill.batches.length, stored: total(storedKill), duplicated: duplicates(storedKill), tables: storedKill },
  }; // prettier-ignore
  console.log(`agent delivery results: ${JSON.stringify(report)}`);
  test.info().annotations.push({ type: 'results', description: JSON.stringify(report) });

  for (const r of [report.outage, report.kill]) {
    expect(r.duplicated).toBe(0);
    expect(r.stored).toBe(r.collected);
    // 3 CockroachDB nodes per collection, and one cgroup/host/heartbeat sample each.
    expect(r.tables.node_status.rows).toBe(3 * r.tables.heartbeats.rows);
    expect(r.tables.cgroup_usage.rows).toBe(r.tables.heartbeats.rows);
    expect(r.tables.host_metrics.rows).toBe(r.tables.heartbeats.rows);
  }
  expect(report.outage.batches).toBeGreaterThanOrEqual(10);
  expect(collectedWhileDown).toBeGreaterThanOrEqual(5);
});

async function waitForLog(a: AgentProcess, msg: string): Promise<Record<string, unknown>> {
  let hit: Record<string, unknown> | undefined;
  await waitFor(() => (hit = a.logs().find((l) => l.msg === msg)) !== undefined, 20_000, `log "${msg}"`);
  return hit!;
}
