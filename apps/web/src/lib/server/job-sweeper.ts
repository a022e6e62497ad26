import { startJobSweeper } from '@clusterscope/services/jobs';
import { onShutdown, type TServer } from './deps';
import { notify } from './live';

/**
 * Ends runs whose agent stopped renewing its lease (failed, never re-run) or that outlived their hard
 * timeout (timed_out), every 2 s. Several web instances sweep safely (conditional updates).
 */
export function startSweeper({ deps }: TServer): void {
  const stop = startJobSweeper(deps, {
    intervalMs: 2000,
    onEnded: (e) => notify({ orgId: e.orgId, topic: 'runs', runId: e.id }),
  });
  onShutdown(stop);
}
