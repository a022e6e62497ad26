import { dirname, join } from 'node:path';
import * as z from 'zod/mini';
import { ZDurationMs, ZSizeBytes } from '../lib/units';

const TOOL_NAMES = ['sysbench', 'pgbench', 'fio', 'wrk', 'hey', 'cockroach-workload'] as const;

const ZAbsDir = z.string().check(z.regex(/^\/[^\0]*$/, 'must be an absolute path'));
const ZHostEntry = z.string().check(z.regex(/^[^\s/]+(\/\d{1,3})?$/, 'must be a host, an IP, a CIDR or *'));

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
  /** Working directory for tools that write files with no target; default `<state dir>/jobs`. */
  work_dir: z.optional(ZAbsDir),
  /** Directories fio / sysbench fileio may write in (symlinks resolved); default [work_dir]. */
  allowed_dirs: z.optional(z.array(ZAbsDir)),
  /**
   * Hosts benchmark tools may connect to: names, IPs, CIDRs, or `*` (any host but link-local and metadata
   * addresses, which must be listed by themselves). Default: the hosts of inputs.cockroachdb.urls.
   */
  allowed_hosts: z.optional(z.array(ZHostEntry)),
  /** Most bytes one job may write (fio size × numjobs, sysbench --file-total-size). */
  max_file_bytes: z._default(ZSizeBytes, 2 * 1024 ** 3),
  /**
   * A command the tools run under (argv, absolute path first), e.g. `[/usr/bin/systemd-run, --scope, --quiet,
   * --collect, --slice=clusterscope-jobs.slice]`: the tool then runs in its own cgroup, outside the agent's
   * CPUQuota/MemoryMax, so a benchmark does not measure the agent's cap. Default: none (the tool is a child).
   */
  exec_prefix: z._default(
    z
      .array(z.string().check(z.minLength(1)))
      .check(z.refine((a) => a.length === 0 || a[0].startsWith('/'), 'must start with an absolute path')),
    [],
  ),
  /** How often live interval samples are parsed and queued. */
  sample_every: z._default(ZDurationMs, 1_000),
});
export type TJobsConfig = z.output<typeof ZJobsConfig>;

/** The jobs config with its defaults resolved from the rest of the agent config. */
export type TJobsSettings = TJobsConfig & {
  work_dir: string;
  allowed_dirs: string[];
  allowed_hosts: string[];
};

/** Defaults: work dir next to the outbox (the agent's state directory), hosts of the cockroachdb input. */
export function resolveJobsConfig(c: {
  jobs: TJobsConfig;
  outbox: { dir: string };
  inputs: { cockroachdb?: false | { urls: string[] } };
}): TJobsSettings {
  const workDir = c.jobs.work_dir ?? join(dirname(c.outbox.dir), 'jobs');
  const crdb = c.inputs.cockroachdb;
  const hosts = (crdb ? crdb.urls : []).map((u) => new URL(u).hostname.replace(/^\[|\]$/g, ''));
  return {
    ...c.jobs,
    work_dir: workDir,
    allowed_dirs: c.jobs.allowed_dirs ?? [workDir],
    allowed_hosts: c.jobs.allowed_hosts ?? [...new Set(hosts)],
  };
}

/** What the heartbeat advertises (the server checks runs against it before queueing them). */
export const jobLimitsOf = (j: TJobsSettings) => ({
  allowed_dirs: j.allowed_dirs,
  allowed_hosts: j.allowed_hosts,
  max_file_bytes: j.max_file_bytes,
});
