/**
 * Two server instances (two PostgreSQL clients, two scheduler loops with their own leader locks) on one
 * database, driven by one fake clock: each slot starts exactly one run; a slot whose previous run is still
 * queued is skipped and says so; and even two passes racing without the lock start one run per slot.
 */
import { createCluster, createDb, createLeaderLock, createOrganization, type TDb } from '@clusterscope/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TCaller } from '../tenancy/caller';
import type { TDeps } from '../core/deps';
import {
  fireSchedules,
  listSchedules,
  createSchedule,
  SCHEDULER_LEADER_KEY,
  startScheduler,
} from './schedules';
import { createWorkload } from './workloads';
import { useTestEnv } from '../core/test-env';

const env = useTestEnv();
let a: TDeps;
let b: TDeps;
let dbB: TDb;
let admin: TCaller;
let workloadId: string;
let scheduleId: string;
const MIN = 60_000;
/** A 5-minute slot an hour from now (schedules never fire slots from before they existed). */
const slot0 = Math.ceil((Date.now() + 60 * MIN) / (5 * MIN)) * 5 * MIN;
let clock = 0;

const scheduledRuns = () =>
  a.db.run.findMany({
    where: { labels: { path: ['schedule'], equals: scheduleId } },
    orderBy: { createdAt: 'asc' },
  });
const slotsAt = (t: number) => a.db.scheduleSlot.findMany({ where: { scheduleId, slot: new Date(t) } });

async function waitFor<T>(f: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  a = env.deps;
  dbB = createDb(env.url);
  b = { ...env.deps, db: dbB };
  const org = await createOrganization(a.db, { name: 'Acme', slug: 'acme' });
  await createCluster(a.db, org.id, { name: 'pg' });
  admin = { kind: 'user', userId: 'u1', orgId: org.id, orgSlug: 'acme', role: 'admin' };
  workloadId = (
    await createWorkload(a, admin, {
      name: 'nightly',
      tool: 'pgbench',
      params: { clients: 1 },
      target: 'postgresql://u@127.0.0.1:5432/db',
    })
  ).id;
  scheduleId = (await createSchedule(a, admin, { workloadId, cron: '*/5 * * * *', clusters: ['pg'] })).id;
});
afterAll(() => dbB?.$disconnect());

describe('scheduler on two instances', () => {
  it('lists the next runs', async () => {
    const [s] = await listSchedules(a, admin, workloadId, new Date(slot0 - 1000));
    expect(s!.nextRuns.slice(0, 2).map((d) => d.getTime())).toEqual([slot0, slot0 + 5 * MIN]);
    expect(s!.clusters.map((c) => c.name)).toEqual(['pg']);
  });

  it('fires one run per slot, and skips a slot whose previous run is still queued', async () => {
    clock = slot0 + 1000;
    const now = () => new Date(clock);
    const stops = [a, b].map((deps) =>
      startScheduler(deps, {
        lock: createLeaderLock(env.url, SCHEDULER_LEADER_KEY, { backoffMs: 0 }),
        intervalMs: 40,
        now,
      }),
    );
    try {
      const first = await waitFor(scheduledRuns, (r) => r.length > 0);
      await new Promise((r) => setTimeout(r, 400)); // many passes of both loops on the same slot
      expect((await scheduledRuns()).length).toBe(1);
      expect(first[0]!.status).toBe('queued');
      expect(first[0]!.labels).toMatchObject({ trigger: 'schedule', slot: new Date(slot0).toISOString() });

      clock = slot0 + 5 * MIN + 1000;
      const skipped = await waitFor(
        () => slotsAt(slot0 + 5 * MIN),
        (s) => !!(s[0]?.runId || s[0]?.skipped),
      );
      expect(skipped).toHaveLength(1);
      expect(skipped[0]!.runId).toBeNull();
      expect(skipped[0]!.skipped).toBe(`previous run ${first[0]!.id} is still queued`);

      await a.db.run.update({ where: { id: first[0]!.id }, data: { status: 'succeeded' } });
      clock = slot0 + 10 * MIN + 1000;
      const two = await waitFor(scheduledRuns, (r) => r.length > 1);
      await new Promise((r) => setTimeout(r, 300));
      expect((await scheduledRuns()).length).toBe(2);
      expect(two[1]!.labels).toMatchObject({ slot: new Date(slot0 + 10 * MIN).toISOString() });
      const [s] = await listSchedules(a, admin, workloadId, new Date(clock));
      expect(s!.recent.map((r) => (r.runId ? 'run' : r.skipped))).toEqual([
        'run',
        `previous run ${first[0]!.id} is still queued`,
        'run',
      ]);
    } finally {
      await Promise.all(stops.map((s) => s()));
    }
  });

  it('the unique slot row alone keeps two racing passes (no lock) to one run', async () => {
    await a.db.run.updateMany({ where: { status: 'queued' }, data: { status: 'succeeded' } });
    const t = new Date(slot0 + 15 * MIN + 1000);
    const [x, y] = await Promise.all([fireSchedules(a, t), fireSchedules(b, t)]);
    expect([...x, ...y].filter((f) => f.runId)).toHaveLength(1);
    expect((await scheduledRuns()).length).toBe(3);
  });

  it('refuses a bad cron or time zone naming the field', async () => {
    await expect(
      createSchedule(a, admin, { workloadId, cron: '99 * * * *', clusters: ['pg'] }),
    ).rejects.toThrow(/^cron: /);
    await expect(
      createSchedule(a, admin, { workloadId, cron: '0 3 * * *', timezone: 'Nowhere/Else', clusters: ['pg'] }),
    ).rejects.toThrow(/^timezone: /);
    await expect(
      createSchedule(a, admin, { workloadId, cron: '0 3 * * *', clusters: ['missing'] }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
