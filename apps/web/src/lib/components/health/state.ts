/** Node-state helpers for pages; the rule itself lives in @clusterscope/schema/health (shared with the server). */
export {
  STATE_TONE as TONE,
  deriveNodeState as displayState,
  type TNodeState,
} from '@clusterscope/schema/health';

export { age } from '$lib/format';
