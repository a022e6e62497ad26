import { createLeaderLock, type TLeaderLock, type TLiveBus, type TLiveEvent } from '@clusterscope/db';
import type { TDeps } from '../core/deps';
import { createEvaluatorMemo, evaluateAlerts, type TEvalStats } from './evaluator';
import { notifyAlerts } from './notify';
import { logOf } from '../core/logger';

/** Advisory-lock key of the alert evaluator (one leader per database). */
export const ALERT_LEADER_KEY = 0x616c7274; // 'alrt'

/** A nudged cycle runs this long after the first notice (notices arriving meanwhile share it). */
export const NUDGE_DELAY_MS = 100;
/** At most one nudged cycle per cluster per window. */
export const NUDGE_WINDOW_MS = 1000;
/**
 * A cycle without transitions runs the notification pass only when the last one is this old: nudges for many
 * clusters do not each pay for it, and its timers (group_wait, repeats, escalation, retries) keep 1 s steps.
 */
export const NOTIFY_GAP_MS = 1000;

export interface TAlertCycle {
  leader: boolean;
  /** Clusters of a nudged cycle (absent for the timer's full cycle). */
  nudged?: string[];
  stats?: TEvalStats;
  /** The whole cycle (lock, evaluation, notification), ms. */
  ms?: number;
  queued?: number;
  sent?: number;
  error?: string;
}

/** Does this live-bus notice mean fresh node status for a cluster (what the ingest endpoint publishes)? */
export const isNodeSampleNotice = (e: TLiveEvent): e is TLiveEvent & { clusterId: string } =>
  e.topic === 'samples' && typeof e.clusterId === 'string' && !!e.kinds?.includes('node_status');

/**
 * Runs evaluation + notification every `intervalMs` on the instance that holds the leader lock; the others
 * only try to take the lock each tick, so a dead leader is replaced within one interval.
 *
 * Fast path: with `bus` (the LISTEN/NOTIFY live bus), a node_status notice for a cluster, published by
 * whichever instance took the ingest, makes the leader evaluate that cluster's rules at once (after
 * NUDGE_DELAY_MS, at most once per cluster per NUDGE_WINDOW_MS). Cycles never overlap.
 */
export function startAlerting(
  deps: TDeps,
  opts: {
    lock: TLeaderLock;
    intervalMs: number;
    bus?: TLiveBus;
    onCycle?: (c: TAlertCycle) => void;
  },
): () => Promise<void> {
  let memo = createEvaluatorMemo();
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  /** The process's start: a restart is not an agent silence (staleness waits for the stale window). */
  const upSince = new Date(Date.now() - process.uptime() * 1000);
  let running: Promise<void> = Promise.resolve();
  let notifiedAt = -Infinity;
  /** Cycles run one after another, timer and nudged alike. */
  const serial = (fn: () => Promise<void>) => (running = running.then(fn, fn));

  async function cycle(scope?: Set<string>) {
    const started = performance.now();
    let c: TAlertCycle = { leader: false };
    try {
      const leader = await opts.lock.tryAcquire();
      c = { leader };
      if (!leader) {
        memo = createEvaluatorMemo();
        notifiedAt = -Infinity;
        return;
      }
      const stats = await evaluateAlerts(deps, { memo, clusterIds: scope, upSince });
      // A leader that lost its lock mid-cycle must not notify (the new leader will).
      if (!opts.lock.isLeader()) return;
      const due = stats.transitions > 0 || performance.now() - notifiedAt >= NOTIFY_GAP_MS;
      const n = due ? await notifyAlerts(deps) : {};
      if (due) notifiedAt = performance.now();
      c = { leader, stats, ...n, ms: performance.now() - started };
    } catch (err) {
      c = { ...c, error: (err as Error).message };
      logOf(deps).warn({ err: (err as Error).message }, 'alert evaluation failed');
    } finally {
      opts.onCycle?.(scope ? { ...c, nudged: [...scope] } : c);
    }
  }

  function tick() {
    void serial(() => cycle()).then(() => {
      if (!stopped) timer = setTimeout(tick, opts.intervalMs);
    });
  }

  // ---- nudges ----
  const pending = new Set<string>();
  const lastNudged = new Map<string, number>();
  let nudgeTimer: NodeJS.Timeout | null = null;
  let nudging = false;

  function armNudge() {
    if (stopped || nudgeTimer || nudging || pending.size === 0) return;
    let at = Infinity;
    for (const id of pending) at = Math.min(at, (lastNudged.get(id) ?? 0) + NUDGE_WINDOW_MS);
    nudgeTimer = setTimeout(runNudge, Math.max(NUDGE_DELAY_MS, at - Date.now()));
  }

  function runNudge() {
    nudgeTimer = null;
    const now = Date.now();
    for (const [id, at] of lastNudged) if (at + NUDGE_WINDOW_MS <= now) lastNudged.delete(id);
    const due = new Set([...pending].filter((id) => !lastNudged.has(id)));
    if (stopped || due.size === 0) return armNudge();
    for (const id of due) {
      pending.delete(id);
      lastNudged.set(id, now);
    }
    nudging = true;
    void serial(() => cycle(due)).then(() => {
      nudging = false;
      armNudge();
    });
  }

  const unsubscribe = opts.bus
    ?.subscribeAll((e) => {
      // Followers ignore notices: only the leader evaluates. Notices for unknown clusters cost one
      // scoped cycle that finds nothing (bounded by the window, like any other).
      if (stopped || !opts.lock.isLeader() || !isNodeSampleNotice(e)) return;
      pending.add(e.clusterId);
      armNudge();
    })
    .catch(() => () => undefined);

  tick();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    if (nudgeTimer) clearTimeout(nudgeTimer);
    (await unsubscribe)?.();
    await running.catch(() => undefined);
    await opts.lock.close();
  };
}

/** The loop on this thread (vite dev; the built web server runs it on the alerting thread, thread.ts). */
export function startAlertingLeader(
  deps: TDeps,
  opts: {
    databaseUrl: string;
    intervalMs: number;
    bus?: TLiveBus;
    onCycle?: (c: TAlertCycle) => void;
  },
) {
  return startAlerting(deps, {
    lock: createLeaderLock(opts.databaseUrl, ALERT_LEADER_KEY),
    intervalMs: opts.intervalMs,
    bus: opts.bus,
    onCycle: opts.onCycle,
  });
}
