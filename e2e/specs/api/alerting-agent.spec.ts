/**
 * Issue 12 §5 "Scenario": the real agent (built bundle, 1 s interval) against a loopback fixture CockroachDB
 * whose node 2 flaps DEAD for 30 s, then goes down for good, then comes back. The app (its evaluator every
 * 2 s plus the ingest fast path) pages a local webhook receiver through the built-in "node down" rule
 * (`for: 1m`) of a fresh org: the flap sends nothing, the outage exactly one firing and one resolved
 * notification. ~2 min.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { BASE_URL, DATA_DIR } from '../../playwright.config';
import {
  buildAgentDist,
  createCluster,
  createIngestToken,
  spawnAgent,
  startCockroach,
  writeAgentConfig,
  type AgentProcess,
} from '../../fixtures/agent';
import { storeMetrics, type FixtureNode } from '@clusterscope/agent/testing';
import { ADMIN, TSX_LOADER, WEB_DIR } from '../../fixtures/launch';

const uid = randomBytes(4).toString('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const run = promisify(execFile);

/**
 * The admin CLI against the running app's database (as CI runners use it). Async: a blocked event loop
 * cannot drop keep-alive sockets the server closed meanwhile, and the next fetch would reuse a dead one.
 */
const admin = async (...args: string[]) =>
  (
    await run(process.execPath, [...TSX_LOADER, ADMIN, ...args], {
      cwd: WEB_DIR,
      env: { ...process.env, DATA_DIR: DATA_DIR },
      encoding: 'utf8',
    })
  ).stdout
    .trim()
    .split('\n')
    .pop()!;

async function rpc<T>(token: string, proc: string, input: unknown): Promise<T> {
  const res = await fetch(`${BASE_URL}/api/trpc/${proc}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const text = await res.text();
  expect(res.status, `${proc}: ${text}`).toBe(200);
  return (JSON.parse(text) as { result: { data: T } }).result.data;
}

async function query<T>(token: string, proc: string, input: unknown): Promise<T> {
  const res = await fetch(`${BASE_URL}/api/trpc/${proc}?input=${encodeURIComponent(JSON.stringify(input))}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await res.text();
  expect(res.status, `${proc}: ${text}`).toBe(200);
  return (JSON.parse(text) as { result: { data: T } }).result.data;
}

interface THook {
  at: number;
  status: string;
  alerts: { status: string; labels: Record<string, string> }[];
}

const nodes: FixtureNode[] = [1, 2, 3].map((id) => ({
  id,
  liveness: 3,
  expiresInMs: 9000,
  stores: [storeMetrics(id)],
}));
const setNode2 = (down: boolean) => {
  nodes[1] = { ...nodes[1]!, liveness: down ? 1 : 3, expiresInMs: down ? -60_000 : 9000 };
};

let agent: AgentProcess | undefined;
let receiver: http.Server | undefined;
let cockroach: Awaited<ReturnType<typeof startCockroach>> | undefined;
let work = '';

test.afterAll(async () => {
  if (agent && agent.child.exitCode === null) {
    agent.child.kill('SIGKILL');
    await agent.exited;
  }
  await cockroach?.close();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('node 2 of a real agent’s cluster: a 30 s flap under for: 1m pages nobody; an outage pages once and resolves once', async () => {
  test.setTimeout(240_000);
  const hooks: THook[] = [];
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      hooks.push({ at: Date.now(), ...(JSON.parse(body) as Omit<THook, 'at'>) });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  // A fresh org: its routing and grouping are its own (critical → the webhook; resolved sent within 2 s).
  const slug = `scn-${uid}`;
  await admin('org', 'create', '--name', slug, '--slug', slug);
  const token = await admin('token', 'create', '--org', slug, '--name', `scn-${uid}`, '--scopes', 'admin');
  const cluster = await createCluster(BASE_URL, token, `scenario-${uid}`);
  const ingest = await createIngestToken(BASE_URL, token, cluster.id, `scn-agent-${uid}`);
  const hook = await rpc<{ id: string }>(token, 'alerting.createChannel', {
    name: 'receiver',
    kind: 'webhook',
    config: { url: hookUrl },
    secret: { hmacSecret: 'scenario' },
  });
  await rpc(token, 'alerting.setRouting', {
    routes: [{ severity: 'critical', channelIds: [hook.id] }],
    grouping: { groupWaitS: 0, groupIntervalS: 2, repeatIntervalS: 3600 },
  });
  const rules = await query<{ builtin: string | null; forS: number }[]>(token, 'alerting.rules', {
    clusterId: cluster.id,
  });
  expect(rules.find((r) => r.builtin === 'node_down')?.forS).toBe(60);

  cockroach = await startCockroach(nodes);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-e2e-scn-'));
  const cfg = writeAgentConfig(work, {
    url: BASE_URL,
    token: ingest.token,
    host: `scn-${uid}`,
    outboxDir: path.join(work, 'outbox'),
    cockroachUrl: cockroach.url,
    intervalMs: 1000,
  });
  agent = spawnAgent(buildAgentDist().agentJs, ['--config', cfg]);
  await sleep(5000); // a few healthy samples

  // Flap: DEAD for 30 s, then LIVE. Pending only; nothing is sent.
  setNode2(true);
  await sleep(30_000);
  setNode2(false);
  await sleep(10_000);
  expect(hooks, 'no notification for a 30 s flap under for: 1m').toEqual([]);

  // Outage: node 2 DEAD for 75 s → one firing notification, not before for: 1m has passed.
  const downAt = Date.now();
  setNode2(true);
  await expect.poll(() => hooks.length, { timeout: 90_000, intervals: [1000] }).toBeGreaterThan(0);
  const firing = hooks[0]!;
  expect(firing.status).toBe('firing');
  expect(firing.alerts.map((a) => a.labels.node)).toEqual(['2']);
  expect(firing.at - downAt).toBeGreaterThanOrEqual(59_000);
  await sleep(Math.max(0, downAt + 75_000 - Date.now()));

  // Back: one resolved notification, then quiet.
  setNode2(false);
  await expect.poll(() => hooks.length, { timeout: 30_000, intervals: [1000] }).toBe(2);
  expect(hooks[1]!.status).toBe('resolved');
  expect(hooks[1]!.alerts.map((a) => [a.labels.node, a.status])).toEqual([['2', 'resolved']]);
  await sleep(6000);
  expect(hooks.map((h) => h.status)).toEqual(['firing', 'resolved']);
  expect(agent.child.exitCode).toBeNull();
});
