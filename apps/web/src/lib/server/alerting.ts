import { existsSync } from 'node:fs';
import path from 'node:path';
import { startAlertingLeader } from '@clusterscope/services';
import { getServer, onShutdown } from './deps';
import { getEnv } from './env';
import { getLiveBus } from './live';

const g = globalThis as unknown as { __csAlerting?: boolean };

/**
 * Starts the on-call alert evaluator + notifier in this web process (every ALERT_EVAL_INTERVAL_S, 0 = off).
 * Every instance runs the loop, but only the holder of the PostgreSQL advisory lock evaluates. The ingest
 * endpoint's node_status notices on the live bus (LISTEN/NOTIFY, any instance) make the leader evaluate that
 * cluster at once, so a node going down pages within seconds of the agent's sample, not one interval later.
 */
export async function startAlertingOnce(): Promise<void> {
  if (g.__csAlerting) return;
  g.__csAlerting = true;
  const env = getEnv();
  if (env.ALERT_EVAL_INTERVAL_S === 0) return;
  const { deps } = await getServer();
  // Rules are evaluated on a worker thread (the bundled alert-worker.js next to index.js); without it
  // (vite dev) on the event loop.
  const entry = path.join(path.dirname(process.argv[1] ?? ''), 'alert-worker.js');
  let leader = false;
  const stop = startAlertingLeader(deps, {
    databaseUrl: env.DATABASE_URL,
    intervalMs: env.ALERT_EVAL_INTERVAL_S * 1000,
    bus: getLiveBus(),
    workerEntry: existsSync(entry) ? entry : undefined,
    onCycle: (c) => {
      if (c.leader !== leader)
        console.error(
          JSON.stringify({
            level: 'info',
            msg: c.leader ? 'alert evaluator: leader' : 'alert evaluator: follower',
          }),
        );
      leader = c.leader;
    },
  });
  onShutdown(stop);
}
