import { startSchedulerLeader } from '@clusterscope/services';
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
  onShutdown(startSchedulerLeader(deps, { databaseUrl: getEnv().DATABASE_URL, intervalMs: 15_000 }));
}
