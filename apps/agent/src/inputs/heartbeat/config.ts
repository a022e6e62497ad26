import * as z from 'zod/mini';
import { ZDurationMs } from '../../lib/units';

export const BENCH_TOOLS = ['sysbench', 'pgbench', 'fio', 'wrk', 'hey', 'cockroach'] as const;

export const ZHeartbeatConfig = z.strictObject({
  /** Binaries looked up on PATH and reported as capabilities. */
  tools: z._default(
    z
      .array(z.string().check(z.regex(/^[\w.-]+$/, 'must be a binary name without slashes')))
      .check(z.maxLength(32)),
    [...BENCH_TOOLS],
  ),
  /** How often PATH is rescanned. */
  rescan: z._default(ZDurationMs, 600_000),
});
export type THeartbeatConfig = z.output<typeof ZHeartbeatConfig>;
