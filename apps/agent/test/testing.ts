/** What other workspace packages' tests use of the agent's test helpers (`@clusterscope/agent/testing`). */
export * from './agent-process';
export * from './cgroup-fixture';
export * from './cockroach-fixture';
export * from './forge';
export * from './temp';
export { parseNodeStatusOutput } from '../src/inputs/cockroachdb/cli-output';
export { buildNodeStatusSamples } from '../src/inputs/cockroachdb/wire';
