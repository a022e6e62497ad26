import { z } from 'zod';
import { ZDurationMs } from '../../lib/units';

export const BENCH_TOOLS = ['sysbench', 'pgbench', 'fio', 'wrk', 'hey', 'cockroach'] as const;

export const ZHeartbeatConfig = z
  .object({
    /** Binaries looked up on PATH and reported as capabilities. */
    tools: z.array(z.string().regex(/^[\w.-]+$/, 'a binary name without slashes')).max(32).default([...BENCH_TOOLS]),
    /** How often PATH is rescanned. */
    rescan: ZDurationMs.default(600_000),
  })
  .strict();
export type THeartbeatConfig = z.output<typeof ZHeartbeatConfig>;
