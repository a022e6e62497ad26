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

export const isSilenceActive = (s: Pick<TSilenceMatcher, 'startsAt' | 'endsAt'>, at: Date) =>
  s.startsAt.getTime() <= at.getTime() && at.getTime() < s.endsAt.getTime();

/** Every set matcher must match; a node matcher matches only alerts about that node. */
export function silenceMatches(s: TSilenceMatcher, a: TSilenceTarget, at: Date): boolean {
  if (!isSilenceActive(s, at)) return false;
  if (s.clusterId !== null && s.clusterId !== a.clusterId) return false;
  if (s.ruleId !== null && s.ruleId !== a.ruleId) return false;
  if (s.nodeId !== null && a.labels.node !== String(s.nodeId)) return false;
  return true;
}

export const isSilenced = (silences: TSilenceMatcher[], a: TSilenceTarget, at: Date) =>
  silences.some((s) => silenceMatches(s, a, at));
