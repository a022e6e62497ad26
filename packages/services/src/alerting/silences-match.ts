/** Pure matching of silences to alert instances. */
export interface TSilenceMatcher {
  clusterId: string | null;
  nodeId: number | null;
  ruleId: string | null;
  startsAt: Date;
  endsAt: Date;
}

export interface TSilenceTarget {
  clusterId: string;
  ruleId: string;
  labels: Record<string, string>;
}

/** An instance as the lists show it: its state and the span it was pending or firing. */
export interface TSilenceSpan extends TSilenceTarget {
  state: string;
  activeAt: Date | null;
  firedAt: Date | null;
  resolvedAt: Date | null;
}

export const isSilenceActive = (s: Pick<TSilenceMatcher, 'startsAt' | 'endsAt'>, at: Date) =>
  s.startsAt.getTime() <= at.getTime() && at.getTime() < s.endsAt.getTime();

/** Every set matcher must match; a node matcher matches only alerts about that node. */
export function matchersMatch(s: Omit<TSilenceMatcher, 'startsAt' | 'endsAt'>, a: TSilenceTarget): boolean {
  if (s.clusterId !== null && s.clusterId !== a.clusterId) return false;
  if (s.ruleId !== null && s.ruleId !== a.ruleId) return false;
  if (s.nodeId !== null && a.labels.node !== String(s.nodeId)) return false;
  return true;
}

export const silenceMatches = (s: TSilenceMatcher, a: TSilenceTarget, at: Date) =>
  isSilenceActive(s, at) && matchersMatch(s, a);

export const isSilenced = (silences: TSilenceMatcher[], a: TSilenceTarget, at: Date) =>
  silences.some((s) => silenceMatches(s, a, at));

/**
 * Whether the lists mark an instance silenced: a pending or firing one while a matching silence is active
 * now; a resolved one only if a matching silence overlapped its active span (a silence made after an alert
 * resolved muted nothing of it).
 */
export function isSilencedSpan(silences: TSilenceMatcher[], a: TSilenceSpan, now: Date): boolean {
  if (a.state === 'pending' || a.state === 'firing') return isSilenced(silences, a, now);
  if (a.state !== 'resolved' || !a.resolvedAt) return false;
  const from = (a.activeAt ?? a.firedAt ?? a.resolvedAt).getTime();
  const to = a.resolvedAt.getTime();
  return silences.some((s) => s.startsAt.getTime() < to && s.endsAt.getTime() > from && matchersMatch(s, a));
}
