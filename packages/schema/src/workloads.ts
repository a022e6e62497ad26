import { z } from 'zod';
import { ZMachine } from './machine';
import { ZVerdictMetrics } from './verdict-words';
import { ZRunStatus, ZTool, type TTool } from './common';

/**
 * Workloads (named, versioned benchmark definitions) and the job queue agents claim.
 *
 * Safety: every parameter is a number in a range, a boolean or a value from a fixed list, so no value can
 * become a flag or a command when the agent builds the tool's argv (no shell, ever). The plain-data
 * constants below are inlined into the agent bundle, which re-checks every value it places in argv.
 */

export const PGBENCH_BUILTINS = ['tpcb-like', 'select-only', 'simple-update'] as const;
export const PGBENCH_PROTOCOLS = ['simple', 'extended', 'prepared'] as const;
export const SYSBENCH_TESTS = [
  'oltp_read_only',
  'oltp_read_write',
  'oltp_write_only',
  'oltp_point_select',
  'cpu',
  'memory',
  'fileio',
] as const;
export const SYSBENCH_OLTP_TESTS = SYSBENCH_TESTS.filter((t) => t.startsWith('oltp_'));
export const SYSBENCH_FILE_MODES = ['seqwr', 'seqrewr', 'seqrd', 'rndrd', 'rndwr', 'rndrw'] as const;
export const HEY_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'] as const;
export const FIO_RW = ['read', 'write', 'randread', 'randwrite', 'rw', 'randrw'] as const;
export const FIO_ENGINES = ['psync', 'sync', 'libaio', 'io_uring', 'mmap'] as const;
export const COCKROACH_WORKLOADS = ['bank', 'kv', 'ycsb', 'tpcc'] as const;
export const YCSB_WORKLOADS = ['A', 'B', 'C', 'D', 'E', 'F'] as const;
/** A size like 4k, 64M, 1G (fio/sysbench notation). */
export const SIZE_PATTERN = '^[1-9][0-9]{0,9}[kKmMgG]?$';
/** Name of an agent-side secret in `secret:<name>`. */
export const SECRET_NAME_PATTERN = '^[A-Za-z0-9_.-]{1,64}$';
/** Binary each tool needs on the agent (the heartbeat capability name). */
export const TOOL_BINARIES: Record<TTool, string> = {
  sysbench: 'sysbench',
  pgbench: 'pgbench',
  fio: 'fio',
  wrk: 'wrk',
  hey: 'hey',
  'cockroach-workload': 'cockroach',
};

export const JOB_LEASE_MIN_S = 3;
export const JOB_LEASE_MAX_S = 300;
export const JOB_WAIT_MAX_S = 60;

const int = (min: number, max: number) => z.number().int().min(min).max(max);
const qint = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const size = z.string().regex(new RegExp(SIZE_PATTERN), 'a size like 4k, 64M or 1G');

export const ZPgbenchParams = z.strictObject({
  clients: int(1, 1000).default(1),
  jobs: int(1, 256).default(1),
  /** Scale factor for `pgbench -i` (the init pre-step). */
  scale: int(1, 100_000).optional(),
  builtin: z.enum(PGBENCH_BUILTINS).default('tpcb-like'),
  protocol: z.enum(PGBENCH_PROTOCOLS).optional(),
  /** Progress report interval (live samples). */
  progress: int(1, 60).default(1),
  /** Run `pgbench -i -s <scale>` on the target before the run (drops and recreates pgbench tables). */
  init: z.boolean().default(false),
});

export const ZSysbenchParams = z
  .strictObject({
    test: z.enum(SYSBENCH_TESTS),
    threads: int(1, 1024).default(1),
    tables: int(1, 1000).optional(),
    tableSize: int(1, 100_000_000).optional(),
    reportInterval: int(1, 60).default(1),
    /** oltp/fileio: `cleanup` + `prepare` before the run. */
    prepare: z.boolean().default(true),
    cpuMaxPrime: int(10, 10_000_000).optional(),
    memoryBlockSize: size.optional(),
    memoryTotalSize: size.optional(),
    fileTestMode: z.enum(SYSBENCH_FILE_MODES).optional(),
    fileTotalSize: size.optional(),
  })
  .superRefine((p, ctx) => {
    if (p.test === 'fileio' && !p.fileTestMode)
      ctx.addIssue({ code: 'custom', path: ['fileTestMode'], message: 'required for the fileio test' });
  });

export const ZHeyParams = z.strictObject({
  concurrency: int(1, 10_000).default(10),
  /** Total requests; when set the run stops after them instead of after the duration. */
  requests: int(1, 100_000_000).optional(),
  method: z.enum(HEY_METHODS).default('GET'),
  /** Rate limit per worker (queries per second). */
  qps: int(1, 1_000_000).optional(),
  timeoutS: int(1, 600).optional(),
});

export const ZWrkParams = z
  .strictObject({
    threads: int(1, 256).default(2),
    connections: int(1, 100_000).default(10),
    latency: z.boolean().default(true),
    timeoutS: int(1, 600).optional(),
  })
  .refine((p) => p.connections >= p.threads, {
    path: ['connections'],
    message: 'must be at least threads',
  });

export const ZFioParams = z.strictObject({
  rw: z.enum(FIO_RW).default('randread'),
  bs: size.default('4k'),
  size: size.default('64M'),
  iodepth: int(1, 1024).default(1),
  numjobs: int(1, 64).default(1),
  ioengine: z.enum(FIO_ENGINES).default('psync'),
  direct: z.boolean().default(false),
  /** randrw/rw: percentage of reads. */
  rwmixread: int(0, 100).optional(),
});

export const ZCockroachWorkloadParams = z.strictObject({
  workload: z.enum(COCKROACH_WORKLOADS),
  concurrency: int(1, 10_000).default(8),
  warehouses: int(1, 100_000).optional(),
  readPercent: int(0, 100).optional(),
  ycsbWorkload: z.enum(YCSB_WORKLOADS).optional(),
  /** Run `cockroach workload init <workload>` first. */
  init: z.boolean().default(false),
});

export const TOOL_PARAMS = {
  pgbench: ZPgbenchParams,
  sysbench: ZSysbenchParams,
  hey: ZHeyParams,
  wrk: ZWrkParams,
  fio: ZFioParams,
  'cockroach-workload': ZCockroachWorkloadParams,
} as const satisfies Record<TTool, z.ZodType>;

export type TPgbenchParams = z.infer<typeof ZPgbenchParams>;
export type TSysbenchParams = z.infer<typeof ZSysbenchParams>;
export type THeyParams = z.infer<typeof ZHeyParams>;
export type TWrkParams = z.infer<typeof ZWrkParams>;
export type TFioParams = z.infer<typeof ZFioParams>;
export type TCockroachWorkloadParams = z.infer<typeof ZCockroachWorkloadParams>;

// ---- targets ----

/** What a tool's target may be. */
export type TTargetKind = 'postgres' | 'mysql' | 'http' | 'path' | 'none';

export function targetKindsFor(tool: TTool, params: Record<string, unknown>): TTargetKind[] {
  switch (tool) {
    case 'pgbench':
    case 'cockroach-workload':
      return ['postgres'];
    case 'hey':
    case 'wrk':
      return ['http'];
    case 'fio':
      return ['path', 'none'];
    case 'sysbench': {
      const t = String(params.test ?? '');
      if (t.startsWith('oltp_')) return ['postgres', 'mysql'];
      return t === 'fileio' ? ['path', 'none'] : ['none'];
    }
  }
}

/** No whitespace or control characters anywhere, never a leading dash. */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const SAFE_TARGET = /^[^\s\x00-\x1f\x7f-][^\s\x00-\x1f\x7f]*$/;
/** libpq URL parameters a target may carry (others could make the agent read local files). */
export const PG_URL_PARAMS = ['sslmode', 'connect_timeout', 'application_name'] as const;

/** Classifies a (resolved) target; null when it is of no accepted form. */
export function classifyTarget(target: string): TTargetKind | 'secret' | null {
  if (target === '') return 'none';
  if (target.length > 2048 || !SAFE_TARGET.test(target)) return null;
  if (target.startsWith('secret:'))
    return new RegExp(SECRET_NAME_PATTERN).test(target.slice(7)) ? 'secret' : null;
  if (target.startsWith('/')) return /^\/[A-Za-z0-9_./@+-]*$/.test(target) ? 'path' : null;
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    return null;
  }
  if (u.protocol === 'postgres:' || u.protocol === 'postgresql:')
    return [...u.searchParams.keys()].every((k) => (PG_URL_PARAMS as readonly string[]).includes(k))
      ? 'postgres'
      : null;
  if (u.protocol === 'mysql:') return 'mysql';
  if ((u.protocol === 'http:' || u.protocol === 'https:') && u.hostname) return 'http';
  return null;
}

export const ZTarget = z
  .string()
  .trim()
  .max(2048)
  .refine((t) => classifyTarget(t) !== null, {
    message:
      'must be empty, secret:<name>, an absolute path, or a postgres(ql)://, mysql:// or http(s):// URL without spaces',
  });

/** A target with the password of a URL replaced by `***` (for display and run records). */
export function redactTarget(target: string): string {
  try {
    const u = new URL(target);
    if (!u.password) return target;
    u.password = '***';
    return u.toString();
  } catch {
    return target;
  }
}

// ---- workloads API ----

/** A name or id from a client: trimmed, 1–128 characters, no control characters (PostgreSQL rejects NUL). */
export const ZName = z
  .string()
  .trim()
  .min(1)
  .max(128)
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  .regex(/^[^\x00-\x1f\x7f]+$/, 'no control characters');

const ZWorkloadFields = z.object({
  name: ZName,
  tool: ZTool,
  params: z.record(z.string().max(64), z.unknown()).default({}),
  target: ZTarget.default(''),
  durationS: int(1, 86_400).default(60),
  warmupS: int(0, 3600).default(0),
  description: z.string().max(2000).default(''),
  /** Metric names and kinds that can make a verdict (empty: rates, latencies and error rates). */
  verdictMetrics: ZVerdictMetrics.default([]),
  /** Confirmation runs a suspected regression of a run started on an agent waits for (0: alert at once). */
  confirmRuns: int(0, 10).default(2),
  /** Clusters (ids or names) on which the workload runs once after a CockroachDB build change. */
  changeClusterIds: z.array(z.string().min(1).max(128)).max(50).default([]),
});

export const ZWorkloadCreate = ZWorkloadFields;
export type TWorkloadCreate = z.input<typeof ZWorkloadCreate>;

export interface TWorkloadIssue {
  path: string;
  message: string;
}

/**
 * Validates `params` for `tool` (defaults applied) and the target's form for it. Returns the parsed params,
 * or issues named by field (`params.clients`, `target`).
 */
export function validateWorkload(w: {
  tool: TTool;
  params: Record<string, unknown>;
  target: string;
}): { ok: true; params: Record<string, unknown> } | { ok: false; issues: TWorkloadIssue[] } {
  const r = (TOOL_PARAMS[w.tool] as z.ZodType<Record<string, unknown>>).safeParse(w.params);
  if (!r.success)
    return {
      ok: false,
      issues: r.error.issues.map((i) => ({
        path: ['params', ...i.path.map(String)].join('.'),
        message: i.message,
      })),
    };
  const kind = classifyTarget(w.target);
  const allowed = targetKindsFor(w.tool, r.data);
  if (kind === null)
    return { ok: false, issues: [{ path: 'target', message: 'is not of an accepted form' }] };
  if (kind !== 'secret' && !allowed.includes(kind)) {
    const what = allowed
      .map((k) => (k === 'none' ? 'no target' : k === 'path' ? 'an absolute path' : `a ${k} URL`))
      .join(' or ');
    const tool = w.tool === 'sysbench' ? `sysbench ${String(r.data.test)}` : w.tool;
    return {
      ok: false,
      issues: [
        {
          path: 'target',
          message: `${tool} needs ${what}${allowed.includes('none') ? '' : ' (or secret:<name>)'}`,
        },
      ],
    };
  }
  return { ok: true, params: r.data };
}

export const ZWorkloadPatch = z.object({
  id: z.string().min(1).max(128),
  name: ZName.optional(),
  tool: ZTool.optional(),
  params: z.record(z.string().max(64), z.unknown()).optional(),
  target: ZTarget.optional(),
  durationS: int(1, 86_400).optional(),
  warmupS: int(0, 3600).optional(),
  description: z.string().max(2000).optional(),
  verdictMetrics: ZVerdictMetrics.optional(),
  confirmRuns: int(0, 10).optional(),
  changeClusterIds: z.array(z.string().min(1).max(128)).max(50).optional(),
});
export type TWorkloadPatch = z.infer<typeof ZWorkloadPatch>;

export const ZWorkload = z.object({
  id: z.string(),
  name: z.string(),
  tool: z.string(),
  version: z.number().int(),
  params: z.record(z.string(), z.unknown()),
  /** Password of a URL target shown as ***. */
  target: z.string(),
  durationS: z.number().int(),
  warmupS: z.number().int(),
  description: z.string(),
  verdictMetrics: z.array(z.string()),
  confirmRuns: z.number().int(),
  /** Cluster ids on which it runs once after a CockroachDB build change (upgrade or rollback). */
  changeClusterIds: z.array(z.string()),
  runs: z.number().int(),
  /** The newest run; its cluster is the default of the next Run. */
  lastRun: z
    .object({ id: z.string(), status: ZRunStatus, startedAt: z.string(), clusterId: z.string().nullable() })
    .nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TWorkload = z.infer<typeof ZWorkload>;

export const ZWorkloadId = z.object({ id: z.string().min(1).max(128) });

export const ZWorkloadStart = z.object({
  /** Workload id or name. */
  id: z.string().min(1).max(128),
  /** Cluster id or name. */
  cluster: z.string().min(1).max(128),
  /** Only this agent (name) may claim the run. */
  agent: z.string().min(1).max(256).optional(),
  /** Queue even when the cluster is unhealthy; the run is labelled forced. */
  force: z.boolean().default(false),
  /** Hard limit; default duration + warm-up + 5 minutes. */
  timeoutS: int(5, 86_400).optional(),
  labels: z.record(z.string().min(1).max(64), z.string().max(256)).optional(),
});
export type TWorkloadStart = z.input<typeof ZWorkloadStart>;

export const ZRunStarted = z.object({
  id: z.string(),
  status: ZRunStatus,
  forced: z.boolean(),
  /** Why the health gate would have refused, or a note (e.g. no node data). */
  health: z.object({ ok: z.boolean(), reasons: z.array(z.string()), nodes: z.number().int() }),
});
export type TRunStarted = z.infer<typeof ZRunStarted>;

export const ZRunCancelled = z.object({ id: z.string(), status: ZRunStatus, cancelRequested: z.boolean() });

// ---- agent job protocol ----

export const ZAgentName = z.string().trim().min(1).max(256);

export const ZJobClaimIn = z.object({
  /** Optional: the agent is the one the credential names; when sent it must be that agent's name. */
  agent: ZAgentName.optional(),
  /** Long-poll: seconds to wait for a job. */
  wait: qint(0, JOB_WAIT_MAX_S).default(30),
  /** Lease the agent will renew. */
  lease: qint(JOB_LEASE_MIN_S, JOB_LEASE_MAX_S).default(30),
  /** Tools disabled in the agent's config, comma separated. */
  disabled: z.string().max(512).optional(),
});
export type TJobClaimIn = z.input<typeof ZJobClaimIn>;

export const ZJob = z.object({
  id: z.string(),
  tool: ZTool,
  workload: z.string(),
  workloadVersion: z.number().int(),
  params: z.record(z.string(), z.unknown()),
  /** Possibly `secret:<name>`, resolved by the agent. */
  target: z.string(),
  durationS: z.number().int(),
  warmupS: z.number().int(),
  timeoutS: z.number().int(),
  leaseS: z.number().int(),
  leaseExpiresAt: z.string(),
});
export type TJob = z.infer<typeof ZJob>;

export const ZJobClaimOut = z.object({ job: ZJob.nullable() });

export const ZJobRef = z.object({ id: z.string().min(1).max(64), agent: ZAgentName.optional() });

export const ZJobLeaseIn = ZJobRef.extend({
  lease: qint(JOB_LEASE_MIN_S, JOB_LEASE_MAX_S).default(30),
  /** Set once the tool is spawned: claimed → running. */
  running: z.boolean().optional(),
  /** The machine the tool runs on, sent with `running`: baselines are chosen from runs on its kind. */
  machine: ZMachine.optional(),
});
export const ZJobLeaseOut = z.object({
  cancelRequested: z.boolean(),
  status: ZRunStatus,
  leaseExpiresAt: z.string().nullable(),
});
export type TJobLeaseOut = z.infer<typeof ZJobLeaseOut>;

export const ZJobOutputIn = ZJobRef.extend({ output: z.string().max(8 * 1024 * 1024) });

export const ZJobFinishIn = ZJobRef.extend({
  status: z.enum(['succeeded', 'failed', 'cancelled', 'timed_out']),
  exitCode: z.number().int().min(-1024).max(1024).optional(),
  error: z.string().max(4000).optional(),
});
export type TJobFinishIn = z.infer<typeof ZJobFinishIn>;

export const ZRunProgress = z.object({
  id: z.string(),
  status: ZRunStatus,
  cancelRequested: z.boolean(),
  forced: z.boolean(),
  agent: z.string().nullable(),
  samples: z.number().int(),
  queuedAt: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  leaseExpiresAt: z.string().nullable(),
  timeoutS: z.number().int(),
  error: z.string().nullable(),
});
export type TRunProgress = z.infer<typeof ZRunProgress>;
