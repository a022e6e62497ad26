import { createLeaderLock, type TLeaderLock } from '@clusterscope/db';
import type { TDeps } from '../deps';
import { createEvaluatorMemo, evaluateAlerts, type TEvalStats } from './evaluator';
import { notifyAlerts } from './notify';

/** Advisory-lock key of the alert evaluator (one leader per database). */
export const ALERT_LEADER_KEY = 0x616c7274; // 'alrt'

export interface TAlertCycle {
  leader: boolean;
  stats?: TEvalStats;
  queued?: number;
  sent?: number;
  error?: string;
}

/**
 * Runs evaluation + notification every `intervalMs` on the instance that holds the leader lock; the others
 * only try to take the lock each tick, so a dead leader is replaced within one interval.
 */
export function startAlerting(
  deps: TDeps,
  opts: { lock: TLeaderLock; intervalMs: number; onCycle?: (c: TAlertCycle) => void },
): () => Promise<void> {
  let memo = createEvaluatorMemo();
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();

  async function tick() {
    let cycle: TAlertCycle = { leader: false };
    try {
      const leader = await opts.lock.tryAcquire();
      cycle = { leader };
      if (!leader) {
        memo = createEvaluatorMemo();
        return;
      }
      const stats = await evaluateAlerts(deps, { memo });
      // A leader that lost its lock mid-cycle must not notify (the new leader will).
      if (!opts.lock.isLeader()) return;
      const n = await notifyAlerts(deps);
      cycle = { leader, stats, ...n };
    } catch (err) {
      cycle = { ...cycle, error: (err as Error).message };
      console.error(
        JSON.stringify({ level: 'warn', msg: 'alert evaluation failed', err: (err as Error).message }),
      );
    } finally {
      opts.onCycle?.(cycle);
      if (!stopped) timer = setTimeout(() => (running = tick()), opts.intervalMs);
    }
  }
  running = tick();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running.catch(() => undefined);
    await opts.lock.close();
  };
}

/** The web process's entry: leader lock on its own connection to `databaseUrl`, then the loop. */
export function startAlertingLeader(
  deps: TDeps,
  opts: { databaseUrl: string; intervalMs: number; onCycle?: (c: TAlertCycle) => void },
) {
  return startAlerting(deps, {
    lock: createLeaderLock(opts.databaseUrl, ALERT_LEADER_KEY),
    intervalMs: opts.intervalMs,
    onCycle: opts.onCycle,
  });
}
