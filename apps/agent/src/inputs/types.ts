import type { TSample } from '@clusterscope/schema';
import type * as z from 'zod/mini';
import type { Logger } from '../lib/log';

export interface OutboxStats {
  bytes: number;
  pending: number;
  evictions: number;
}

/** What every input gets from the agent. */
export interface InputContext {
  host: string;
  nodeId: number | null;
  version: string;
  startedAt: number;
  logger: Logger;
  /** PATH used to find benchmark tools (from the env module). */
  pathEnv?: string;
  outboxStats(): OutboxStats;
  /** The cockroachdb input's nodes (when enabled): the prometheus input scrapes their `/_status/vars`. */
  cockroachdb?: { urls: string[]; headers: Record<string, string>; timeout: number };
  /** Counters shared between inputs (the heartbeat reports them). */
  counters?: { metricsDropped: number };
  /** Job confinement advertised in the heartbeat (jobs enabled only). */
  jobLimits?: { allowed_dirs: string[]; allowed_hosts: string[]; max_file_bytes: number };
}

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

export interface Input {
  readonly name: string;
  /** false when the input has nothing configured to read (it is then not expected to produce samples). */
  readonly active?: boolean;
  /** One collection; `now` is the batch timestamp (epoch ms). Throws only on total failure. */
  collect(now: number): Promise<TSample[]>;
  /** Reachability/readability checks for `--check`. */
  check(): Promise<CheckResult[]>;
}

export interface InputDefinition<S extends z.ZodMiniType = z.ZodMiniType> {
  name: string;
  /** Enabled when absent from the config file (set `false` to disable). */
  enabledByDefault: boolean;
  config: S;
  create(config: z.output<S>, ctx: InputContext): Input;
}

/** What an input module declares: its `create` returns the input without a name (it gets the definition's). */
export type InputSpec<S extends z.ZodMiniType> = Omit<InputDefinition<S>, 'create'> & {
  create(config: z.output<S>, ctx: InputContext): Omit<Input, 'name'>;
};

/** Declares an input: keeps the config type attached to `create` and names what it creates. */
export function defineInput<S extends z.ZodMiniType>(spec: InputSpec<S>): InputDefinition<S> {
  return { ...spec, create: (config, ctx) => Object.assign(spec.create(config, ctx), { name: spec.name }) };
}
