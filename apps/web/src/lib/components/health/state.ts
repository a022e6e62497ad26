/** Node-state helpers for pages; the rule itself lives in @clusterscope/schema/health (shared with the server). */
export {
  NODE_STATES,
  STATE_TONE as TONE,
  countsTowardTotals,
  deriveNodeState as displayState,
  staleAfterMs,
  stateWord,
  type TNodeState,
} from '@clusterscope/schema/health';

export { age } from '$lib/format';
