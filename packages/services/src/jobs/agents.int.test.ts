/**
 * Agents are principals (issue 11 §1, §7): only an agent's own credential may heartbeat as it and claim,
 * lease, post output for and finish its jobs; long-polls are capped per agent and woken by NOTIFY.
 */
import {
  createCluster,
  createLiveBus,
  createOrganization,
  getWorkload,
  insertQueuedRun,
  JOBS_CHANNEL,
  listAgents,
  type TDb,
} from '@clusterscope/db';
import type { THeartbeatSample } from '@clusterscope/schema';
import type { TIngestBatch } from '@clusterscope/schema';
import type { TWriter } from '@clusterscope/tsdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrollAgent, revokeAgent } from './agents';
import type { TCaller } from '../tenancy/caller';
import type { TDeps } from '../core/deps';
import { AppError } from '../core/errors';
import { ingestPrepared } from '../ingest/ingest';
import { holdInProcess } from '../ingest/ingest-pool';
import { headOf } from '../ingest/ingest-prep';
import { claimJob, finishJob, postJobOutput, renewLease } from './jobs';
import { authenticateToken, createToken } from '../tenancy/tokens';
import { createWorkload, startWorkloadRun } from '../runs/workloads';
import { errorCode, tpcbWorkload, useTestEnv } from '../core/test-env';

/** Stores a batch the way the ingest route does (decoded in process). */
const ingestBatch = (deps: TDeps, caller: TCaller, batch: TIngestBatch, writer?: TWriter) =>
  ingestPrepared(deps, caller, holdInProcess(headOf(batch), batch.samples), writer);

const env = useTestEnv((url) => ({ jobBus: createLiveBus(url, JOBS_CHANNEL) }));
let db: TDb;
let deps: TDeps;
let orgId: string;
let member: TCaller;
let admin: TCaller;
const raw: Record<string, string> = {};
const as = (name: string) => authenticateToken(deps, raw[name]);

const hb = (host: string, capabilities: string[]): THeartbeatSample => ({
  kind: 'heartbeat',
  ts: Date.now(),
  host,
  version: 'v-test',
  uptime_s: 1,
  capabilities,
  outbox_bytes: 0,
  outbox_pending: 0,
  outbox_evictions: 0,
  metrics_dropped: 0,
});
let batches = 0;
const heartbeat = async (caller: TCaller, name: string, capabilities: string[], cluster?: string) =>
  ingestBatch(deps, caller, {
    batchId: `hb-${++batches}-${Date.now()}`,
    cluster,
    agent: { name, version: 'v-test' },
    samples: [hb(name, capabilities)],
  });
const agentRow = async (name: string) => (await listAgents(db, orgId)).find((a) => a.name === name)!;

beforeAll(async () => {
  ({ db, deps } = env);
  const org = await createOrganization(db, { name: 'Acme', slug: 'acme' });
  orgId = org.id;
  const pgc = await createCluster(db, org.id, { name: 'pg' });
  await createCluster(db, org.id, { name: 'other' });
  member = { kind: 'user', userId: 'u1', orgId, orgSlug: 'acme', role: 'member' };
  admin = { kind: 'user', userId: 'u2', orgId, orgSlug: 'acme', role: 'admin' };
  for (const [name, scopes, clusterId] of [
    ['ingest', ['ingest'], null],
    ['ingestPg', ['ingest'], pgc.id],
    ['runsWrite', ['runs:write'], null],
    ['read', ['read'], null],
    ['admin', ['admin'], null],
  ] as const)
    raw[name] = (await createToken(deps, orgId, { name, scopes: [...scopes], clusterId })).token;
  for (const [name, cluster] of [
    ['a', 'pg'],
    ['b', 'pg'],
    ['y', 'other'],
    ['n', 'pg'],
  ]) {
    const r = await enrollAgent(deps, orgId, { name, cluster });
    raw[name] = r.token!;
    await heartbeat(await as(name), name, ['pgbench']);
  }
  await createWorkload(deps, admin, tpcbWorkload(1));
});

afterAll(async () => {
  await deps?.jobBus?.close();
});

describe('agent job routes accept only the agent credential', () => {
  it('ingest, runs:write, read and admin tokens and user sessions get FORBIDDEN on claim/lease/output/finish', async () => {
    const s = await startWorkloadRun(deps, member, { id: 'tpcb', cluster: 'pg', agent: 'a' });
    for (const who of ['ingest', 'ingestPg', 'runsWrite', 'read', 'admin']) {
      const c = await as(who);
      expect(await errorCode(claimJob(deps, c, { agent: 'a', wait: 0 })), who).toBe('FORBIDDEN');
    }
    expect(await errorCode(claimJob(deps, member, { agent: 'a', wait: 0 }))).toBe('FORBIDDEN');
    const a = await as('a');
    const job = (await claimJob(deps, a, { wait: 0 })).job!;
    expect(job.id).toBe(s.id);
    expect(job.target).toBe('postgresql://u:secret@127.0.0.1:5432/db');
    for (const who of ['ingest', 'runsWrite', 'admin']) {
      const c = await as(who);
      expect(await errorCode(renewLease(deps, c, { id: s.id, agent: 'a' })), who).toBe('FORBIDDEN');
      expect(await errorCode(postJobOutput(deps, c, { id: s.id, agent: 'a', output: 'tps = 1' })), who).toBe(
        'FORBIDDEN',
      );
      expect(await errorCode(finishJob(deps, c, { id: s.id, agent: 'a', status: 'failed' })), who).toBe(
        'FORBIDDEN',
      );
    }
    expect((await finishJob(deps, a, { id: s.id, status: 'succeeded' })).status).toBe('succeeded');
  });

  it("agent A's credential cannot claim, lease or finish agent B's job", async () => {
    const s = await startWorkloadRun(deps, member, { id: 'tpcb', cluster: 'pg', agent: 'b' });
    const a = await as('a');
    // Naming B with A's credential is refused; A's own claim does not see B's reserved run.
    expect(await errorCode(claimJob(deps, a, { agent: 'b', wait: 0 }))).toBe('FORBIDDEN');
    expect((await claimJob(deps, a, { wait: 0 })).job).toBeNull();
    const b = await as('b');
    expect((await claimJob(deps, b, { agent: 'b', wait: 0 })).job?.id).toBe(s.id);
    expect(await errorCode(renewLease(deps, a, { id: s.id, agent: 'b' }))).toBe('FORBIDDEN');
    expect(await errorCode(renewLease(deps, a, { id: s.id }))).toBe('CONFLICT');
    expect(await errorCode(postJobOutput(deps, a, { id: s.id, output: 'x' }))).toBe('CONFLICT');
    expect(await errorCode(finishJob(deps, a, { id: s.id, agent: 'b', status: 'failed' }))).toBe('FORBIDDEN');
    expect(await errorCode(finishJob(deps, a, { id: s.id, status: 'failed' }))).toBe('CONFLICT');
    expect((await finishJob(deps, b, { id: s.id, status: 'succeeded' })).status).toBe('succeeded');
  });

  it('a job for cluster X is not offered to an agent of cluster Y', async () => {
    const s = await startWorkloadRun(deps, member, { id: 'tpcb', cluster: 'pg' });
    expect((await claimJob(deps, await as('y'), { agent: 'y', wait: 0 })).job).toBeNull();
    const got = (await claimJob(deps, await as('a'), { agent: 'a', wait: 0 })).job;
    expect(got?.id).toBe(s.id);
    await finishJob(deps, await as('a'), { id: s.id, status: 'succeeded' });
  });

  it('a revoked agent credential gets UNAUTHORIZED at once', async () => {
    const r = await enrollAgent(deps, orgId, { name: 'doomed', cluster: 'pg' });
    expect((await authenticateToken(deps, r.token!)).agentId).toBe(r.agent.id);
    await revokeAgent(deps, admin, r.agent.id);
    expect(await errorCode(authenticateToken(deps, r.token!))).toBe('UNAUTHORIZED');
  });
});

describe('heartbeats', () => {
  it("another token's heartbeat under an enrolled agent's name changes nothing", async () => {
    const before = await agentRow('a');
    // A plain ingest token bound to another cluster, and a same-cluster one, and agent B's credential.
    const otherId = (await createCluster(db, orgId, { name: 'attacker' })).id;
    const bound = (await createToken(deps, orgId, { name: 'x', scopes: ['ingest'], clusterId: otherId }))
      .token;
    await heartbeat(await authenticateToken(deps, bound), 'a', ['fio', 'wrk']);
    await heartbeat(await as('ingestPg'), 'a', ['fio']);
    await heartbeat(await as('b'), 'a', ['hey']);
    const after = await agentRow('a');
    expect(after.clusterId).toBe(before.clusterId);
    expect(after.capabilities).toEqual(['pgbench']);
    // B's heartbeat naming 'a' updated B itself (the name comes from the credential).
    expect((await agentRow('b')).capabilities).toEqual(['hey']);
    await heartbeat(await as('b'), 'b', ['pgbench']);
  });

  it('a legacy ingest token may still register an agent, but never moves it to another cluster', async () => {
    await heartbeat(await as('ingestPg'), 'legacy', ['pgbench']);
    const l = await agentRow('legacy');
    expect(l.cluster?.name).toBe('pg');
    expect(l.credential).toBeNull();
    await heartbeat(await as('ingest'), 'legacy', ['fio'], 'other');
    expect((await agentRow('legacy')).cluster?.name).toBe('pg');
    // and it cannot use the job routes until enrolled
    expect(await errorCode(claimJob(deps, await as('ingestPg'), { agent: 'legacy', wait: 0 }))).toBe(
      'FORBIDDEN',
    );
  });

  it('enroll --from-token turns the legacy token into that agent credential (same raw value)', async () => {
    const legacyTok = (await createToken(deps, orgId, { name: 'old', scopes: ['ingest'] })).token;
    const r = await enrollAgent(deps, orgId, { name: 'legacy', cluster: 'pg', fromToken: legacyTok });
    expect(r.token).toBeNull();
    const c = await authenticateToken(deps, legacyTok);
    expect(c).toMatchObject({ agentId: r.agent.id, scopes: ['ingest'] });
    expect((await claimJob(deps, c, { agent: 'legacy', wait: 0 })).job).toBeNull();
  });
});

describe('long-polls', () => {
  it('a third concurrent long-poll of one agent gets TOO_MANY_REQUESTS', async () => {
    const y = await as('y');
    const one = claimJob(deps, y, { agent: 'y', wait: 2 });
    const two = claimJob(deps, y, { agent: 'y', wait: 2 });
    await new Promise((r) => setTimeout(r, 100));
    const err = await claimJob(deps, y, { agent: 'y', wait: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('TOO_MANY_REQUESTS');
    expect((err as AppError).details?.retryAfterS).toBeGreaterThan(0);
    expect(await Promise.all([one, two])).toEqual([{ job: null }, { job: null }]);
    // Slots are given back.
    expect(await claimJob(deps, y, { wait: 0 })).toEqual({ job: null });
  });

  it('a NOTIFY from another instance wakes a waiting claim well under the old 500 ms poll step', async () => {
    const n = await as('n');
    const w = (await getWorkload(db, orgId, 'tpcb'))!;
    const cluster = (await agentRow('n')).clusterId!;
    // Another web instance, connected before the wait starts (its NOTIFY then takes a few ms).
    const otherInstance = createLiveBus(env.url, JOBS_CHANNEL);
    await otherInstance.publish({ orgId: 'warm-up', topic: 'jobs' });
    const waiting = claimJob(deps, n, { agent: 'n', wait: 10 });
    await new Promise((r) => setTimeout(r, 50));
    // Another web instance queues the run: its DB insert plus its NOTIFY, nothing in this process.
    await insertQueuedRun(db, orgId, {
      clusterId: cluster,
      workloadId: w.id,
      workloadVersion: w.version,
      tool: 'pgbench',
      toolWorkload: 'tpcb-like',
      params: {},
      labels: {},
      forced: false,
      timeoutS: 60,
      agentId: null,
      createdById: null,
    });
    const t0 = Date.now();
    await otherInstance.publish({ orgId, topic: 'jobs' });
    const got = await waiting;
    const tookMs = Date.now() - t0;
    await otherInstance.close();
    expect(got.job).not.toBeNull();
    // The old loop re-checked every 500 ms: it answered ~450 ms after this notice.
    expect(tookMs).toBeLessThan(300);
    await finishJob(deps, n, { id: got.job!.id, agent: 'n', status: 'succeeded' });
  });
});
