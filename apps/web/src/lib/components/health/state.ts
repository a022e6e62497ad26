/** Node-state helpers for pages; the rule itself lives in @clusterscope/schema/health (shared with the server). */
export {
  STATE_TONE as TONE,
  deriveNodeState as displayState,
  type TNodeState,
} from '@clusterscope/schema/health';

/** Compact age: "4s", "3m", "2h", "5d". */
export function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}
