import { startJobSweeper } from '@clusterscope/services';
import { getServer, onShutdown } from './deps';
import { notify } from './live';

const g = globalThis as unknown as { __csJobSweeper?: boolean };

/**
 * Ends runs whose agent stopped renewing its lease (failed, never re-run) or that outlived their hard
 * timeout (timed_out), every 2 s. One per process; several web instances sweep safely (conditional updates).
 */
export async function startJobSweeperOnce(): Promise<void> {
  if (g.__csJobSweeper) return;
  g.__csJobSweeper = true;
  const { deps } = await getServer();
  const stop = startJobSweeper(deps, {
    intervalMs: 2000,
    onEnded: (e) => notify({ orgId: e.orgId, topic: 'runs', runId: e.id }),
  });
  onShutdown(stop);
}
