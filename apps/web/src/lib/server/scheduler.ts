import { createLeaderLock } from '@clusterscope/db';
import { SCHEDULER_LEADER_KEY, startScheduler } from '@clusterscope/services';
import { getServer, onShutdown } from './deps';
import { getEnv } from './env';

const g = globalThis as unknown as { __csScheduler?: boolean };

/**
 * Fires workload schedules every 15 s. Every instance runs the loop, but only the holder of the scheduler's
 * PostgreSQL advisory lock fires, and each (schedule, cluster, slot) row is unique, so a slot starts one run.
 */
export async function startSchedulerOnce(): Promise<void> {
  if (g.__csScheduler) return;
  g.__csScheduler = true;
  const { deps } = await getServer();
  const lock = createLeaderLock(getEnv().DATABASE_URL, SCHEDULER_LEADER_KEY);
  onShutdown(startScheduler(deps, { lock, intervalMs: 15_000 }));
}
