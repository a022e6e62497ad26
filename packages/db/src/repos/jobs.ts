import type { TDb } from '../client';
import { Prisma, type RunStatus } from '../generated/prisma/client';
import { getRun, type TRunInsert, type TRunRow } from './runs';

/** The job queue: runs in status queued → claimed → running → final, leased by one agent at a time. */

const OPEN: RunStatus[] = ['claimed', 'running'];

export async function findAgentByName(db: TDb, orgId: string, name: string) {
  return db.agent.findUnique({ where: { organizationId_name: { organizationId: orgId, name } } });
}

export async function setAgentDisabledTools(db: TDb, agentId: string, tools: string[]) {
  await db.agent.update({ where: { id: agentId }, data: { disabledTools: tools } });
}

export async function insertQueuedRun(
  db: TDb,
  orgId: string,
  input: TRunInsert & {
    toolWorkload: string;
    forced: boolean;
    timeoutS: number;
    /** An agent the run is reserved for (only it may claim). */
    agentId: string | null;
  },
): Promise<TRunRow> {
  const now = new Date();
  const run = await db.run.create({
    data: {
      organizationId: orgId,
      ...input,
      params: input.params as Prisma.InputJsonValue,
      status: 'queued',
      queuedAt: now,
      startedAt: now,
    },
  });
  return (await getRun(db, orgId, run.id))!;
}

/**
 * Claims the oldest queued run this agent may take (its cluster, one of its tools, unreserved or reserved
 * for it) with `FOR UPDATE SKIP LOCKED`, so concurrent agents never claim the same run. Null when none.
 */
export async function claimNextJob(
  db: TDb,
  q: { orgId: string; clusterId: string; agentId: string; tools: string[]; leaseS: number },
): Promise<TRunRow | null> {
  if (q.tools.length === 0) return null;
  const id = await db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM "Run"
      WHERE "organizationId" = ${q.orgId}
        AND status = 'queued'
        AND "clusterId" = ${q.clusterId}
        AND tool IN (${Prisma.join(q.tools)})
        AND ("agentId" IS NULL OR "agentId" = ${q.agentId})
        AND "cancelRequested" = false
      ORDER BY "queuedAt" ASC, id ASC
      LIMIT 1
      FOR UPDATE SKIP LOCKED`;
    if (rows.length === 0) return null;
    await tx.run.update({
      where: { id: rows[0].id },
      data: {
        status: 'claimed',
        agentId: q.agentId,
        leaseExpiresAt: new Date(Date.now() + q.leaseS * 1000),
      },
    });
    return rows[0].id;
  });
  return id ? getRun(db, q.orgId, id) : null;
}

/**
 * Renews the lease of a run the agent holds (claimed or running); `running` moves claimed → running and
 * stamps startedAt. Null when the agent no longer holds it (finished, expired, or another agent's).
 */
export async function renewJobLease(
  db: TDb,
  q: {
    orgId: string;
    id: string;
    agentId: string;
    leaseS: number;
    running?: boolean;
    machine?: { value: Record<string, unknown>; kind: string };
  },
): Promise<TRunRow | null> {
  const now = new Date();
  const mine = { id: q.id, organizationId: q.orgId, agentId: q.agentId, finishedAt: null };
  if (q.running)
    await db.run.updateMany({
      where: { ...mine, status: 'claimed' },
      data: {
        status: 'running',
        startedAt: now,
        ...(q.machine
          ? { machine: q.machine.value as Prisma.InputJsonValue, machineKind: q.machine.kind }
          : {}),
      },
    });
  const res = await db.run.updateMany({
    where: { ...mine, status: { in: OPEN } },
    data: { leaseExpiresAt: new Date(now.getTime() + q.leaseS * 1000) },
  });
  return res.count > 0 ? getRun(db, q.orgId, q.id) : null;
}

/** The run if this agent holds it (claimed or running, not finished). */
export async function getHeldJob(db: TDb, orgId: string, id: string, agentId: string) {
  const r = await getRun(db, orgId, id);
  return r && r.agentId === agentId && OPEN.includes(r.status) && !r.finishedAt ? r : null;
}

/** Ends a run the agent holds; null when it does not hold it any more. */
export async function finishHeldJob(
  db: TDb,
  q: { orgId: string; id: string; agentId: string },
  data: { status: RunStatus; exitCode: number | null; error: string | null },
): Promise<TRunRow | null> {
  const res = await db.run.updateMany({
    where: { id: q.id, organizationId: q.orgId, agentId: q.agentId, finishedAt: null, status: { in: OPEN } },
    data: { ...data, finishedAt: new Date(), leaseExpiresAt: null },
  });
  return res.count > 0 ? getRun(db, q.orgId, q.id) : null;
}

/**
 * Cancel: a queued run ends `cancelled` at once; a claimed/running one gets cancelRequested (its agent sees
 * it on the next lease renewal). Returns the run after the change, null when missing.
 */
export async function requestRunCancel(db: TDb, orgId: string, id: string): Promise<TRunRow | null> {
  await db.run.updateMany({
    where: { id, organizationId: orgId, status: 'queued', finishedAt: null },
    data: { status: 'cancelled', cancelRequested: true, finishedAt: new Date() },
  });
  await db.run.updateMany({
    where: { id, organizationId: orgId, status: { in: OPEN }, finishedAt: null },
    data: { cancelRequested: true },
  });
  return getRun(db, orgId, id);
}

export interface TExpiredJob {
  id: string;
  orgId: string;
  status: RunStatus;
  error: string;
}

/**
 * The sweeper's pass: ends runs whose agent stopped renewing the lease (failed — never re-run; cancelled
 * when a cancel was pending), running runs past their hard timeout plus `graceMs` (timed_out), and queued
 * runs no agent claimed within their timeout (failed). Each end is a conditional update, so concurrent
 * sweepers (several web instances) end a run once.
 */
export async function expireJobs(db: TDb, now = new Date(), graceMs = 30_000): Promise<TExpiredJob[]> {
  const open = await db.run.findMany({
    // Only queued (agent-executed) runs: a CI-posted run has no lease and may legitimately run for hours.
    where: { status: { in: ['queued', ...OPEN] }, finishedAt: null, queuedAt: { not: null } },
    select: {
      id: true,
      organizationId: true,
      status: true,
      leaseExpiresAt: true,
      startedAt: true,
      queuedAt: true,
      timeoutS: true,
      cancelRequested: true,
      agent: { select: { name: true } },
    },
  });
  const out: TExpiredJob[] = [];
  const t = now.getTime();
  for (const r of open) {
    let status: RunStatus | null = null;
    let error = '';
    const agent = r.agent?.name ? `agent '${r.agent.name}'` : 'the agent';
    if (r.status === 'queued') {
      if ((r.queuedAt ?? r.startedAt).getTime() + r.timeoutS * 1000 < t) {
        status = 'failed';
        error = `no agent claimed the run within its timeout (${r.timeoutS} s)`;
      }
    } else if (r.status === 'running' && r.startedAt.getTime() + r.timeoutS * 1000 + graceMs < t) {
      status = 'timed_out';
      error = `hard timeout of ${r.timeoutS} s exceeded (${agent} did not stop the tool)`;
    } else if (r.leaseExpiresAt && r.leaseExpiresAt.getTime() < t) {
      status = r.cancelRequested ? 'cancelled' : 'failed';
      error = `lease expired: ${agent} stopped renewing it (crashed or lost its connection)`;
    }
    if (!status) continue;
    const res = await db.run.updateMany({
      where: { id: r.id, status: r.status, finishedAt: null },
      data: { status, error, finishedAt: now, leaseExpiresAt: null },
    });
    if (res.count > 0) out.push({ id: r.id, orgId: r.organizationId, status, error });
  }
  return out;
}
