import { startSchedulerLeader } from '@clusterscope/services/runs';
import { onShutdown, type TServer } from './deps';
import { getEnv } from './env';

/**
 * Fires workload schedules every 15 s. Every instance runs the loop, but only the holder of the scheduler's
 * PostgreSQL advisory lock fires, and each (schedule, cluster, slot) row is unique, so a slot starts one run.
 */
export function startScheduler({ deps }: TServer): void {
  onShutdown(startSchedulerLeader(deps, { databaseUrl: getEnv().DATABASE_URL, intervalMs: 15_000 }));
}
