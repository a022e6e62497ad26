/** Every input the agent knows, in collection order. Add a new input here. */
import { cgroupInput } from './cgroup/index';
import { cockroachdbInput } from './cockroachdb/index';
import { heartbeatInput } from './heartbeat/index';
import { hostInput } from './host/index';
import { prometheusInput } from './prometheus/index';
import type { InputDefinition } from './types';

export const INPUTS = [
  cockroachdbInput,
  prometheusInput,
  cgroupInput,
  hostInput,
  heartbeatInput,
] as const satisfies readonly InputDefinition[];
export type TInputName = (typeof INPUTS)[number]['name'];
