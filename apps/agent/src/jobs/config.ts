import * as z from 'zod/mini';
import { ZDurationMs } from '../lib/units';

const TOOL_NAMES = ['sysbench', 'pgbench', 'fio', 'wrk', 'hey', 'cockroach-workload'] as const;

/** The job loop: claims runs queued from the dashboard and runs them (off unless enabled). */
export const ZJobsConfig = z.strictObject({
  enabled: z._default(z.boolean(), false),
  /** Long-poll window of one claim request. */
  wait: z._default(z.pipe(ZDurationMs, z.number().check(z.gte(0), z.lte(60_000))), 30_000),
  /** Lease requested per job; renewed every lease/3. The server fails the run when it expires. */
  lease: z._default(z.pipe(ZDurationMs, z.number().check(z.gte(3_000), z.lte(300_000))), 30_000),
  /** Time between SIGINT and SIGKILL when a run is cancelled or times out. */
  grace: z._default(ZDurationMs, 5_000),
  /** Tools this agent never runs (reported to the server on every claim). */
  disabled_tools: z._default(z.array(z.enum(TOOL_NAMES)), []),
  /** Values for `secret:<name>` targets; they never leave this host. */
  secrets: z._default(z.record(z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,64}$/)), z.string()), {}),
  /** Working directory for tools that write files (sysbench fileio, fio without a target). */
  work_dir: z._default(z.string().check(z.minLength(1)), '/tmp/clusterscope-agent-jobs'),
  /** How often live interval samples are parsed and queued. */
  sample_every: z._default(ZDurationMs, 1_000),
});
export type TJobsConfig = z.output<typeof ZJobsConfig>;
