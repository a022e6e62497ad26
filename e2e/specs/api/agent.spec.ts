/**
 * The real agent (dist/agent.js) against the real app: a fixture CockroachDB admin endpoint with three
 * nodes (one draining) and a temp cgroup v2 tree → POST /api/v1/ingest → read back through the API.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { BASE_URL, DATA_DIR, PORT } from '../../playwright.config';
import {
  adminTokenFor,
  buildAgentDist,
  createCluster,
  createIngestToken,
  FIXTURE_NODES,
  fixtureReplicas,
  scrapeMetrics,
  spawnAgent,
  startCockroach,
  writeAgentConfigIn,
  type AgentProcess,
} from '../../fixtures/agent';
import { waitFor } from '../../fixtures/launch';
import { tempDir } from '@clusterscope/agent/testing';

const METRICS_PORT = PORT + 2;
const AGENT_PKG = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, '../../../apps/agent/package.json'), 'utf8'),
) as { version: string };
const run = promisify(execFile);
const uid = () => randomBytes(4).toString('hex');
const auth = (t: string) => ({ authorization: `Bearer ${t}` });

let agentJs: string;
let cockroach: Awaited<ReturnType<typeof startCockroach>>;
let admin: string;
let cluster: { id: string; name: string };
let ingest: { id: string; token: string };
let work: string;
const daemons: AgentProcess[] = [];

/** Runs the agent to completion; never throws on a non-zero exit. */
async function runAgent(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [agentJs, ...args], { timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof err.code === 'number' ? err.code : -1,
      stdout: err.stdout ?? '',
      stderr: err.stderr ?? '',
    };
  }
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  agentJs = buildAgentDist().agentJs;
  cockroach = await startCockroach();
  admin = adminTokenFor(DATA_DIR, `e2e-agent-${uid()}`);
  const name = `agent-${uid()}`;
  cluster = { ...(await createCluster(BASE_URL, admin, name)), name };
  ingest = await createIngestToken(BASE_URL, admin, cluster.id, `agent-${uid()}`);
  work = tempDir('cs-e2e-agent');
});

test.afterAll(async () => {
  for (const d of daemons) {
    d.child.kill('SIGKILL');
    await d.exited;
  }
  await cockroach?.close();
});

test('--check against the real app passes', async () => {
  const cfg = writeAgentConfigIn(work, 'check', {
    url: BASE_URL,
    token: ingest.token,
    cockroachUrl: cockroach.url,
  });
  const r = await runAgent(['--check', '--config', cfg]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^OK +server http:\/\/127\.0\.0\.1:\d+\/api\/v1\/ingest — HTTP 202$/m);
  expect(r.stdout).toMatch(/checks passed/);
  expect(r.stdout).not.toMatch(/^FAIL/m);
});

test('--once, then the daemon: nodes, cgroup and the agent row show up through the API', async ({
  request,
}) => {
  const host = `db-${uid()}`;
  const cfg = writeAgentConfigIn(work, 'daemon', {
    url: BASE_URL,
    token: ingest.token,
    host,
    cockroachUrl: cockroach.url,
    intervalMs: 1000,
    metricsPort: METRICS_PORT,
  });
  const once = await runAgent(['--once', '--config', cfg]);
  expect(once.code, once.stderr).toBe(0);

  const nodesRes = await request.get(`/api/v1/clusters/${cluster.id}/nodes`, { headers: auth(admin) });
  expect(nodesRes.status(), await nodesRes.text()).toBe(200);
  const afterOnce = (await nodesRes.json()) as { nodes: { node_id: number }[] };
  expect(afterOnce.nodes.map((n) => n.node_id).sort()).toEqual([1, 2, 3]);

  const daemon = spawnAgent(agentJs, ['--config', cfg]);
  daemons.push(daemon);
  const delivered = () => daemon.logs().filter((l) => l.msg === 'batch delivered').length;
  await waitFor(() => delivered() >= 4, 30_000, '4 batches delivered by the daemon');

  type TNode = {
    node_id: number;
    state: string;
    liveness: string;
    replicas: number;
    address: string;
    cgroup: { mem_max: number | null; cpu_limit_cores: number | null; mem_current: number } | null;
  };
  const res = await request.get(`/api/v1/clusters/${cluster.id}/nodes`, { headers: auth(admin) });
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { nodes: TNode[]; counts: { total: number; draining: number } };
  const nodes = [...body.nodes].sort((a, b) => a.node_id - b.node_id);
  expect(nodes).toHaveLength(3);
  expect(body.counts).toMatchObject({ total: 3, draining: 1 });
  expect(nodes.map((n) => n.state)).toEqual(['LIVE', 'LIVE', 'DRAINING']);
  expect(nodes.map((n) => n.replicas)).toEqual(FIXTURE_NODES.map(fixtureReplicas));
  expect(nodes.map((n) => n.address)).toEqual(['host1:26257', 'host2:26257', 'host3:26257']);
  // cgroup v2 readings of postgresql.service (cpu.max 50000/100000, memory.max 1 GiB) tied to node 1.
  expect(nodes[0].cgroup).toMatchObject({ cpu_limit_cores: 0.5, mem_max: 1073741824 });
  expect(nodes[0].cgroup!.mem_current).toBe(268435456);

  const agents = await request.get('/api/trpc/agents.list', { headers: auth(admin) });
  expect(agents.status(), await agents.text()).toBe(200);
  const rows = (await agents.json()).result.data as {
    name: string;
    version: string;
    capabilities: string[];
    outboxEvictions: number;
    cluster: { id: string } | null;
    lastSeenAt: string | null;
  }[];
  const row = rows.find((a) => a.name === host);
  expect(row, JSON.stringify(rows.map((a) => a.name))).toBeTruthy();
  expect(row).toMatchObject({ version: AGENT_PKG.version, outboxEvictions: 0, cluster: { id: cluster.id } });
  expect(row!.capabilities).toEqual(expect.arrayContaining(['sysbench', 'pgbench', 'fio']));
  expect(Date.now() - Date.parse(row!.lastSeenAt!)).toBeLessThan(30_000);

  const m = await scrapeMetrics(METRICS_PORT);
  expect(m.get('clusterscope_agent_batches_sent_total')).toBeGreaterThanOrEqual(4);
  expect(m.get('clusterscope_agent_batches_quarantined_total') ?? 0).toBe(0);
  expect(m.get('clusterscope_agent_outbox_evictions_total')).toBe(0);
  expect(m.get('clusterscope_agent_samples_collected_total{input="cockroachdb"}')).toBeGreaterThanOrEqual(12);

  daemon.child.kill('SIGTERM');
  expect(await daemon.exited).toBe(0);
});

test('--check with a revoked token fails clearly', async ({ request }) => {
  const doomed = await createIngestToken(BASE_URL, admin, cluster.id, `doomed-${uid()}`);
  const rv = await request.post('/api/trpc/tokens.revoke', { headers: auth(admin), data: { id: doomed.id } });
  expect(rv.status(), await rv.text()).toBe(200);
  const cfg = writeAgentConfigIn(work, 'revoked', {
    url: BASE_URL,
    token: doomed.token,
    cockroachUrl: cockroach.url,
  });
  const r = await runAgent(['--check', '--config', cfg]);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/^FAIL +server .*HTTP 401 .*invalid, revoked or lacks the "ingest" scope/m);
  expect(r.stdout).toMatch(/1 check\(s\) failed/);
});
