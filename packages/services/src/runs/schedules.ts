import { Cron } from 'croner';
import * as repo from '@clusterscope/db';
import type { TLeaderLock } from '@clusterscope/db';
import { ZScheduleInput, type TSchedule, type TScheduleInput } from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import { canSeeCluster } from '../tenancy/access';
import { audit } from '../tenancy/audit';
import { assertCan, type TCaller } from '../tenancy/caller';
import { resolveCluster } from '../tenancy/clusters';
import { AppError, notFound } from '../core/errors';
import { startWorkloadRun } from './workloads';
import { checkClusterChanges } from '../health/cluster-changes';
import { logOf } from '../core/logger';

/** Advisory-lock key of the scheduler (one process fires schedules per database). */
export const SCHEDULER_LEADER_KEY = 0x73636864; // 'schd'

/**
 * A slot is fired only while it is at most this old: a scheduler that was down for a short while still starts
 * the latest missed slot once, but never a backlog of stale ones.
 */
export const SLOT_LOOKBACK_MS = 10 * 60_000;

const NEXT_RUNS = 5;
const ACTIVE = new Set(['queued', 'claimed', 'running']);

/** Parses a cron expression in a time zone; 400 naming the field when either is invalid. */
export function parseCron(cron: string, timezone: string): Cron {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    throw new AppError(
      'BAD_REQUEST',
      `timezone: '${timezone}' is not an IANA time zone (e.g. Europe/Berlin)`,
    );
  }
  let c: Cron;
  try {
    c = new Cron(cron, { timezone, paused: true, mode: '5-part' });
  } catch (err) {
    throw new AppError(
      'BAD_REQUEST',
      `cron: ${(err as Error).message} (5 fields: minute hour day month weekday)`,
    );
  }
  if (!c.nextRun()) throw new AppError('BAD_REQUEST', `cron: '${cron}' never fires`);
  return c;
}

/** The next `n` slots after `from`, soonest first. */
export function listNextRuns(cron: string, timezone: string, from: Date, n = NEXT_RUNS): Date[] {
  return parseCron(cron, timezone).nextRuns(n, from);
}

/** The latest slot in (now - lookback, now], or null: what a scheduler pass at `now` fires. */
export function findDueSlot(cron: string, timezone: string, now: Date, lookbackMs = SLOT_LOOKBACK_MS) {
  const c = parseCron(cron, timezone);
  let due: Date | null = null;
  for (let t = c.nextRun(new Date(now.getTime() - lookbackMs)); t && t <= now; t = c.nextRun(t)) due = t;
  return due;
}

type TScheduleRow = Awaited<ReturnType<typeof repo.listSchedules>>[number];

function toSchedule(s: TScheduleRow, names: Map<string, string>, now: Date): TSchedule {
  return {
    id: s.id,
    workloadId: s.workloadId,
    cron: s.cron,
    timezone: s.timezone,
    clusters: s.clusterIds.map((id) => ({ id, name: names.get(id) ?? id })),
    enabled: s.enabled,
    nextRuns: s.enabled ? listNextRuns(s.cron, s.timezone, now) : [],
    recent: s.slots.map((x) => ({
      clusterId: x.clusterId,
      slot: x.slot,
      runId: x.runId,
      skipped: x.skipped,
    })),
    createdAt: s.createdAt,
  };
}

async function clusterNames(deps: TDeps, orgId: string, rows: readonly TScheduleRow[]) {
  const ids = [...new Set(rows.flatMap((r) => r.clusterIds))];
  const cs = ids.length
    ? await deps.db.cluster.findMany({ where: { organizationId: orgId, id: { in: ids } } })
    : [];
  return new Map(cs.map((c) => [c.id, c.name]));
}

export async function listSchedules(deps: TDeps, caller: TCaller, workloadId: string, now = new Date()) {
  assertCan(caller, { workload: ['read'] });
  const w = await repo.getWorkload(deps.db, caller.orgId, workloadId);
  if (!w) throw notFound(`workload '${workloadId}'`);
  // A token bound to one cluster sees only the schedules (and the part of each) that run on its cluster.
  const rows = (await repo.listSchedules(deps.db, caller.orgId, w.id))
    .map((r) => ({
      ...r,
      clusterIds: r.clusterIds.filter((id) => canSeeCluster(caller, id)),
      slots: r.slots.filter((x) => canSeeCluster(caller, x.clusterId)),
    }))
    .filter((r) => r.clusterIds.length > 0);
  const names = await clusterNames(deps, caller.orgId, rows);
  return rows.map((r) => toSchedule(r, names, now));
}

export async function createSchedule(deps: TDeps, caller: TCaller, input: TScheduleInput, now = new Date()) {
  assertCan(caller, { workload: ['write'], run: ['start'] });
  const q = ZScheduleInput.parse(input);
  parseCron(q.cron, q.timezone);
  const w = await repo.getWorkload(deps.db, caller.orgId, q.workloadId);
  if (!w) throw notFound(`workload '${q.workloadId}'`);
  const clusters = [];
  for (const c of q.clusters) clusters.push(await resolveCluster(deps, caller, c));
  const row = await repo.createSchedule(deps.db, caller.orgId, {
    workloadId: w.id,
    cron: q.cron,
    timezone: q.timezone,
    clusterIds: [...new Set(clusters.map((c) => c.id))],
    enabled: q.enabled,
  });
  await audit(deps, caller, {
    action: 'schedule.create',
    targetId: row.id,
    data: { workload: w.name, cron: q.cron, timezone: q.timezone, clusters: clusters.map((c) => c.name) },
  });
  return toSchedule(row, new Map(clusters.map((c) => [c.id, c.name])), now);
}

export async function deleteSchedule(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { workload: ['write'] });
  if (!(await repo.deleteSchedule(deps.db, caller.orgId, id))) throw notFound('schedule');
  await audit(deps, caller, { action: 'schedule.delete', targetId: id });
  return { id, deleted: true };
}

export type TFired = { scheduleId: string; clusterId: string; slot: Date; runId?: string; skipped?: string };

/**
 * One scheduler pass: for each enabled schedule, its due slot on each of its clusters is claimed (unique row:
 * only one pass anywhere wins it), then either skipped with the reason (the previous slot's run is still
 * queued or running; the workload cannot start, e.g. the cluster is unhealthy) or started as a run labelled
 * trigger=schedule.
 */
export async function fireSchedules(deps: TDeps, now = new Date()): Promise<TFired[]> {
  const out: TFired[] = [];
  for (const s of await repo.listEnabledSchedules(deps.db)) {
    let slot: Date | null;
    try {
      slot = findDueSlot(s.cron, s.timezone, now);
    } catch {
      continue;
    }
    // A schedule never fires a slot from before it existed.
    if (!slot || slot < s.createdAt) continue;
    for (const clusterId of s.clusterIds) {
      if (!(await repo.claimScheduleSlot(deps.db, s.id, clusterId, slot))) continue;
      const key = { scheduleId: s.id, clusterId, slot };
      const prev = await repo.getPreviousSlotRun(deps.db, s.id, clusterId, slot);
      let res: { runId?: string; skipped?: string };
      if (prev && ACTIVE.has(prev.status))
        res = { skipped: `previous run ${prev.id} is still ${prev.status}` };
      else {
        const caller: TCaller = {
          kind: 'token',
          tokenId: `schedule:${s.id}`,
          orgId: s.organizationId,
          orgSlug: s.organization.slug,
          scopes: ['admin'],
          clusterId: null,
        };
        try {
          const run = await startWorkloadRun(
            deps,
            caller,
            { id: s.workloadId, cluster: clusterId, labels: { schedule: s.id, slot: slot.toISOString() } },
            'schedule',
          );
          res = { runId: run.id };
        } catch (err) {
          res = { skipped: (err as Error).message };
        }
      }
      await repo.recordScheduleSlot(deps.db, key, res);
      out.push({ ...key, ...res });
    }
  }
  return out;
}

/**
 * Fires schedules every `intervalMs` on the instance that holds the scheduler's advisory lock; the others
 * only try to take it each tick, so a dead leader is replaced within one interval. Passes never overlap.
 */
export function startScheduler(
  deps: TDeps,
  opts: { lock: TLeaderLock; intervalMs: number; now?: () => Date; onPass?: (fired: TFired[]) => void },
): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  const pass = async () => {
    try {
      if (!(await opts.lock.tryAcquire())) return;
      const now = opts.now?.() ?? new Date();
      const fired = await fireSchedules(deps, now);
      await checkClusterChanges(deps, now);
      opts.onPass?.(fired);
    } catch (err) {
      logOf(deps).warn({ err: (err as Error).message }, 'scheduler pass failed');
    }
  };
  const tick = () => {
    running = pass().then(() => {
      if (!stopped) timer = setTimeout(tick, opts.intervalMs);
    });
  };
  tick();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
    await opts.lock.close();
  };
}

/** startScheduler with its own leader lock on `databaseUrl` (what each web instance runs). */
export function startSchedulerLeader(deps: TDeps, opts: { databaseUrl: string; intervalMs: number }) {
  return startScheduler(deps, {
    lock: repo.createLeaderLock(opts.databaseUrl, SCHEDULER_LEADER_KEY),
    intervalMs: opts.intervalMs,
  });
}
