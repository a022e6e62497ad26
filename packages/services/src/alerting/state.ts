/** The alert instance state machine (pure): inactive → pending → firing → resolved, with for and keep_firing_for. */
import type { TAlertComparison, TAlertState } from '@clusterscope/schema';

export interface TInstanceState {
  state: TAlertState;
  activeAt: Date | null;
  firedAt: Date | null;
  resolvedAt: Date | null;
  lastTrueAt: Date | null;
}

export const INACTIVE: TInstanceState = {
  state: 'inactive',
  activeAt: null,
  firedAt: null,
  resolvedAt: null,
  lastTrueAt: null,
};

export function compare(value: number, op: TAlertComparison, threshold: number): boolean {
  switch (op) {
    case 'gt':
      return value > threshold;
    case 'gte':
      return value >= threshold;
    case 'lt':
      return value < threshold;
    case 'lte':
      return value <= threshold;
    case 'eq':
      return value === threshold;
    case 'ne':
      return value !== threshold;
  }
}

/**
 * One evaluation step. `cond` is true (condition holds), false (healthy) or null (unknown: no data, or stale
 * data that looks healthy — STALE never counts as healthy, so unknown never resolves or clears anything).
 */
export function step(
  prev: TInstanceState,
  cond: boolean | null,
  now: Date,
  rule: { forS: number; keepFiringForS: number },
): TInstanceState {
  const t = now.getTime();
  if (cond === null) return prev;
  if (cond) {
    if (prev.state === 'firing') return { ...prev, lastTrueAt: now };
    const activeAt = prev.state === 'pending' && prev.activeAt ? prev.activeAt : now;
    if (t - activeAt.getTime() >= rule.forS * 1000)
      return { state: 'firing', activeAt, firedAt: now, resolvedAt: null, lastTrueAt: now };
    return { state: 'pending', activeAt, firedAt: null, resolvedAt: null, lastTrueAt: now };
  }
  if (prev.state === 'firing') {
    const last = (prev.lastTrueAt ?? prev.firedAt ?? now).getTime();
    if (rule.keepFiringForS > 0 && t - last < rule.keepFiringForS * 1000) return prev;
    return { ...prev, state: 'resolved', resolvedAt: now };
  }
  if (prev.state === 'pending') return { ...INACTIVE };
  return prev;
}
