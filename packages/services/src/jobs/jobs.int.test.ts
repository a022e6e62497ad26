import {
  createCluster,
  createOrganization,
  listAudit,
  updateAgentHeartbeat,
  type TDb,
} from '@clusterscope/db';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TCaller } from '../tenancy/caller';
import type { TDeps } from '../core/deps';
import { enrollAgent } from './agents';
import { cancelRun, claimJob, finishJob, getRunProgress, renewLease, sweepJobs } from './jobs';
import { createRun } from '../runs/runs';
import { authenticateToken } from '../tenancy/tokens';
import { createWorkload, startWorkloadRun, updateWorkload } from '../runs/workloads';
import { errorCode, idleHeartbeat, tpcbWorkload, useTestEnv } from '../core/test-env';

const env = useTestEnv();
let db: TDb;
let deps: TDeps;
let admin: TCaller;
let member: TCaller;
let viewer: TCaller;
let ingestTok: TCaller;
const ag: Record<string, TCaller> = {};
let readTok: TCaller;
let otherOrg: TCaller;

/** Enrolls an agent (its credential becomes ag[name]) and records a heartbeat with its tools. */
async function enroll(orgId: string, name: string, cluster: string, capabilities: string[]) {
  const r = await enrollAgent(deps, orgId, { name, cluster });
  ag[name] = await authenticateToken(deps, r.token!);
  await updateAgentHeartbeat(db, r.agent.id, idleHeartbeat(capabilities));
}

beforeAll(async () => {
  ({ db, deps } = env);
  const org = await createOrganization(db, { name: 'Acme', slug: 'acme' });
  const org2 = await createOrganization(db, { name: 'Other', slug: 'other' });
  const c = await createCluster(db, org.id, { name: 'pg' });
  await createCluster(db, org.id, { name: 'elsewhere' });
  await createCluster(db, org2.id, { name: 'pg' });
  const u = { kind: 'user' as const, orgId: org.id, orgSlug: 'acme' };
  admin = { ...u, userId: 'u1', role: 'admin' };
  member = { ...u, userId: 'u2', role: 'member' };
  viewer = { ...u, userId: 'u3', role: 'viewer' };
  const t = { kind: 'token' as const, tokenId: 't1', orgId: org.id, orgSlug: 'acme', clusterId: null };
  ingestTok = { ...t, scopes: ['ingest'] };
  readTok = { ...t, scopes: ['read'] };
  otherOrg = {
    kind: 'token',
    tokenId: 't2',
    orgId: org2.id,
    orgSlug: 'other',
    clusterId: null,
    scopes: ['ingest'],
  };
  await enroll(org.id, 'a1', c.id, ['pgbench', 'sysbench']);
  await enroll(org.id, 'a2', c.id, ['pgbench']);
  await enroll(org.id, 'a3', c.id, ['hey']);
  await createWorkload(deps, admin, tpcbWorkload(2));
});

describe('workloads', () => {
  it('validates params per tool and bumps the version on edit; viewers cannot write', async () => {
    expect(
      await errorCode(
        createWorkload(deps, admin, { name: 'x', tool: 'pgbench', params: { clients: '1; rm -rf /' } }),
      ),
    ).toBe('UNPROCESSABLE_CONTENT');
    for (const target of ['$(id)', '--foo', 'http://x/ a', 'postgresql://h/db?sslkey=/etc/passwd', 'a\nb'])
      expect(
        await errorCode(createWorkload(deps, admin, { name: 'x', tool: 'pgbench', params: {}, target })),
      ).toBe('UNPROCESSABLE_CONTENT');
    expect(await errorCode(createWorkload(deps, viewer, { name: 'v', tool: 'hey', params: {} }))).toBe(
      'FORBIDDEN',
    );
    const w = await updateWorkload(deps, member, { id: 'tpcb', params: { clients: 3 } });
    expect(w.version).toBe(2);
    expect(w.target).toBe('postgresql://u:***@127.0.0.1:5432/db');
  });
});

describe('job queue', () => {
  it('only admin/member start runs; viewers and read tokens get FORBIDDEN', async () => {
    expect(await errorCode(startWorkloadRun(deps, viewer, { id: 'tpcb', cluster: 'pg' }))).toBe('FORBIDDEN');
    expect(await errorCode(startWorkloadRun(deps, readTok, { id: 'tpcb', cluster: 'pg' }))).toBe('FORBIDDEN');
  });

  it('two agents racing for one job: exactly one claim wins (SKIP LOCKED)', async () => {
    const started = await startWorkloadRun(deps, member, { id: 'tpcb', cluster: 'pg' });
    expect(started.status).toBe('queued');
    expect(started.health.ok).toBe(true); // no node data: not gated, with a note
    const claims = await Promise.all(
      ['a1', 'a2', 'a1', 'a2'].map((agent) => claimJob(deps, ag[agent], { agent, wait: 0, lease: 10 })),
    );
    const won = claims.filter((c) => c.job);
    expect(won).toHaveLength(1);
    expect(won[0].job!.id).toBe(started.id);
    // The real target goes to the agent only; the run record keeps it redacted.
    expect(won[0].job!.target).toBe('postgresql://u:secret@127.0.0.1:5432/db');
    expect(won[0].job!.params).toMatchObject({ clients: 3, builtin: 'tpcb-like' });
    const p = await getRunProgress(deps, admin, started.id);
    expect(p.status).toBe('claimed');
    const holder = p.agent!;
    const loser = holder === 'a1' ? 'a2' : 'a1';
    expect(await errorCode(renewLease(deps, ag[loser], { id: started.id, agent: loser }))).toBe('CONFLICT');
    const machine = {
      cpu_model: 'AMD EPYC 7763 64-Core Processor',
      cores: 8,
      memory_bytes: 32 * 1024 ** 3,
      kernel: '6.8.0',
      os: 'linux/x64',
      cgroup_cpu_cores: null,
      cgroup_memory_bytes: null,
      runner: 'db-host-1',
    };
    const lease = await renewLease(deps, ag[holder], {
      id: started.id,
      agent: holder,
      running: true,
      machine,
    });
    expect(lease).toMatchObject({ status: 'running', cancelRequested: false });
    // The agent's machine is recorded with the run when its tool starts.
    const row = await db.run.findUniqueOrThrow({ where: { id: started.id } });
    expect(row.machine).toMatchObject({ runner: 'db-host-1', cores: 8 });
    expect(row.machineKind).toBe('AMD EPYC 7763 64-Core Processor, 8 cores, 32 GiB');
    const done = await finishJob(deps, ag[holder], {
      id: started.id,
      agent: holder,
      status: 'succeeded',
      exitCode: 0,
    });
    expect(done.status).toBe('succeeded');
    expect(
      await errorCode(finishJob(deps, ag[holder], { id: started.id, agent: holder, status: 'failed' })),
    ).toBe('CONFLICT');
  });

  it('offers jobs only to agents with the tool (minus disabled), of the cluster, and of the org', async () => {
    const s = await startWorkloadRun(deps, member, { id: 'tpcb', cluster: 'pg' });
    expect((await claimJob(deps, ag.a3, { agent: 'a3', wait: 0 })).job).toBeNull(); // hey only
    expect((await claimJob(deps, ag.a1, { agent: 'a1', wait: 0, disabled: 'pgbench' })).job).toBeNull();
    // The disabled list is remembered until the agent reports another one.
    expect((await claimJob(deps, ag.a1, { agent: 'a1', wait: 0 })).job).toBeNull();
    expect((await db.agent.findFirst({ where: { name: 'a1' } }))?.disabledTools).toEqual(['pgbench']);
    expect((await claimJob(deps, ag.a1, { agent: 'a1', wait: 0, disabled: '' })).job?.id).toBe(s.id);
    await finishJob(deps, ag.a1, { id: s.id, agent: 'a1', status: 'failed' });
    const s2 = await startWorkloadRun(deps, member, { id: 'tpcb', cluster: 'pg' });
    expect(await errorCode(claimJob(deps, otherOrg, { agent: 'a1', wait: 0 }))).toBe('FORBIDDEN');
    expect(await errorCode(claimJob(deps, ingestTok, { agent: 'a1', wait: 0 }))).toBe('FORBIDDEN');
    expect(await errorCode(claimJob(deps, ag.a1, { agent: 'ghost', wait: 0 }))).toBe('FORBIDDEN');
    expect(await errorCode(claimJob(deps, member, { agent: 'a1', wait: 0 }))).toBe('FORBIDDEN');
    // Long-poll: a waiting agent is woken by the start.
    const t0 = Date.now();
    const waiting = claimJob(deps, ag.a2, { agent: 'a2', wait: 10 });
    const got = await waiting;
    expect(got.job?.id).toBe(s2.id);
    expect(Date.now() - t0).toBeLessThan(2000);
    await finishJob(deps, ag.a2, { id: s2.id, agent: 'a2', status: 'failed', exitCode: 1 });
  });

  it('a run reserved for an agent goes to that agent only', async () => {
    const s = await startWorkloadRun(deps, member, { id: 'tpcb', cluster: 'pg', agent: 'a2' });
    expect((await claimJob(deps, ag.a1, { agent: 'a1', wait: 0 })).job).toBeNull();
    expect((await claimJob(deps, ag.a2, { agent: 'a2', wait: 0 })).job?.id).toBe(s.id);
    await finishJob(deps, ag.a2, { id: s.id, agent: 'a2', status: 'succeeded' });
  });

  it('long-poll wakes when a run is queued', async () => {
    const waiting = claimJob(deps, ag.a1, { agent: 'a1', wait: 10 });
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    const s = await startWorkloadRun(deps, member, { id: 'tpcb', cluster: 'pg' });
    const got = await waiting;
    expect(got.job?.id).toBe(s.id);
    expect(Date.now() - t0).toBeLessThan(1000);
    await finishJob(deps, ag.a1, { id: s.id, agent: 'a1', status: 'succeeded' });
  });

  it('cancel: queued ends at once; running is flagged for the agent; audit records start and cancel', async () => {
    const q = await startWorkloadRun(deps, member, { id: 'tpcb', cluster: 'elsewhere' });
    expect(await errorCode(cancelRun(deps, viewer, q.id))).toBe('FORBIDDEN');
    expect(await cancelRun(deps, member, q.id)).toMatchObject({ status: 'cancelled' });
    const r = await startWorkloadRun(deps, member, { id: 'tpcb', cluster: 'pg' });
    await claimJob(deps, ag.a1, { agent: 'a1', wait: 0 });
    await renewLease(deps, ag.a1, { id: r.id, agent: 'a1', running: true });
    expect(await cancelRun(deps, admin, r.id)).toMatchObject({ status: 'running', cancelRequested: true });
    expect((await renewLease(deps, ag.a1, { id: r.id, agent: 'a1' })).cancelRequested).toBe(true);
    await finishJob(deps, ag.a1, { id: r.id, agent: 'a1', status: 'cancelled' });
    const audit = await listAudit(db, admin.orgId, { limit: 200 });
    const actions = audit.filter((a) => a.targetId === r.id).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(['run.start', 'run.claim', 'run.cancel', 'run.finish']));
  });

  it('sweeper: an expired lease fails the run (never re-queued); a run past its hard timeout is timed_out', async () => {
    const s = await startWorkloadRun(deps, member, { id: 'tpcb', cluster: 'pg', timeoutS: 60 });
    await claimJob(deps, ag.a1, { agent: 'a1', wait: 0, lease: 3 });
    expect(await sweepJobs(deps)).toEqual([]);
    const ended = await sweepJobs(deps, new Date(Date.now() + 4000));
    expect(ended).toEqual([expect.objectContaining({ id: s.id, status: 'failed' })]);
    const p = await getRunProgress(deps, admin, s.id);
    expect(p.error).toContain('lease expired');
    expect((await claimJob(deps, ag.a2, { agent: 'a2', wait: 0 })).job).toBeNull();

    const t = await startWorkloadRun(deps, member, { id: 'tpcb', cluster: 'pg', timeoutS: 5 });
    await claimJob(deps, ag.a1, { agent: 'a1', wait: 0, lease: 300 });
    await renewLease(deps, ag.a1, { id: t.id, agent: 'a1', running: true, lease: 300 });
    const late = await sweepJobs(deps, new Date(Date.now() + 5000 + 31_000));
    expect(late).toEqual([expect.objectContaining({ id: t.id, status: 'timed_out' })]);
  });

  it('sweeper leaves CI-posted runs alone, however long they run', async () => {
    const ci = await createRun(deps, member, {
      cluster: 'pg',
      workload: 'tpcb',
      startedAt: new Date(Date.now() - 3 * 86_400_000).toISOString(),
    });
    expect(await sweepJobs(deps, new Date(Date.now() + 86_400_000))).not.toContainEqual(
      expect.objectContaining({ id: ci.id }),
    );
    expect((await getRunProgress(deps, admin, ci.id)).status).toBe('running');
  });
});
