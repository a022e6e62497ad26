import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  ALERT_THREAD_NICE,
  startAlertingLeader,
  startAlertingThread,
  type TAlertCycle,
} from '@clusterscope/services/alerting';
import { logOf, secretKeysOf } from '@clusterscope/services/core';
import { onShutdown, type TServer } from './deps';
import { getEnv } from './env';
import { getLiveBus } from './live';

/**
 * Starts the on-call alert evaluator + notifier in this web process (every ALERT_EVAL_INTERVAL_S, 0 = off).
 * Every instance runs the loop, but only the holder of the PostgreSQL advisory lock evaluates. The ingest
 * endpoint's node_status notices on the live bus (LISTEN/NOTIFY, any instance) make the leader evaluate that
 * cluster at once, so a node going down pages within seconds of the agent's sample, not one interval later.
 * The built server runs the loop on its own thread (alert-worker.js next to index.js) so that evaluation
 * never holds up requests; vite dev runs it on the event loop.
 */
export function startAlerting({ deps }: TServer): void {
  const env = getEnv();
  if (env.ALERT_EVAL_INTERVAL_S === 0) return;
  const entry = path.join(path.dirname(process.argv[1] ?? ''), 'alert-worker.js');
  let leader = false;
  const onCycle = (c: TAlertCycle) => {
    if (c.leader !== leader)
      logOf(deps).info(c.leader ? 'alert evaluator: leader' : 'alert evaluator: follower');
    leader = c.leader;
  };
  const intervalMs = env.ALERT_EVAL_INTERVAL_S * 1000;
  const stop = existsSync(entry)
    ? startAlertingThread(deps, {
        entry,
        config: {
          databaseUrl: env.DATABASE_URL,
          clickhouseUrl: env.CLICKHOUSE_URL,
          intervalMs,
          origin: env.ORIGIN,
          smtp: { url: env.SMTP_URL, from: env.SMTP_FROM },
          outboundAllow: env.OUTBOUND_ALLOW,
          vapid: deps.vapid,
          secrets: secretKeysOf(deps),
          nice: ALERT_THREAD_NICE,
        },
        onCycle,
      })
    : startAlertingLeader(deps, { databaseUrl: env.DATABASE_URL, intervalMs, bus: getLiveBus(), onCycle });
  onShutdown(stop);
}
