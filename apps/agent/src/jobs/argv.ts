/**
 * Builds the argv of each step of a job from its validated parameters. No shell, ever: every value is
 * re-checked here (a number in range, a value from a fixed list, a size, a URL or path of an accepted form)
 * and placed in its own argv element (or after `--flag=`), so a parameter can never become a flag or a
 * command. Unknown parameters are refused.
 */
import {
  jobRefusals,
  SYSBENCH_DEFAULT_FILE_TOTAL,
  type TJobLimits,
  COCKROACH_WORKLOADS,
  FIO_ENGINES,
  FIO_RW,
  HEY_METHODS,
  PG_URL_PARAMS,
  PGBENCH_BUILTINS,
  PGBENCH_PROTOCOLS,
  SECRET_NAME_PATTERN,
  SIZE_PATTERN,
  SYSBENCH_FILE_MODES,
  SYSBENCH_TESTS,
  YCSB_WORKLOADS,
  type TTool,
} from '@clusterscope/schema';

export class JobError extends Error {}

export interface TJobSpec {
  id: string;
  tool: TTool;
  params: Record<string, unknown>;
  target: string;
  durationS: number;
  warmupS: number;
}

export type TPhase = 'pre' | 'warmup' | 'main' | 'post';

export interface TStep {
  phase: TPhase;
  /** argv[0] is the binary name; the runner swaps in its absolute path. */
  argv: string[];
  /** Extra environment (e.g. PGPASSWORD so the password is not in argv). */
  env?: Record<string, string>;
  cwd?: string;
}

export interface TPlan {
  binary: string;
  steps: TStep[];
  /** Files the runner writes (mode 0600) before the steps and removes after: passwords a tool reads from a file. */
  files?: { path: string; content: string }[];
  /** The directory the tool writes to, when it needs one. */
  workDir?: string;
}

const TOOL_KEYS: Record<TTool, readonly string[]> = {
  pgbench: ['clients', 'jobs', 'scale', 'builtin', 'protocol', 'progress', 'init'],
  sysbench: [
    'test', 'threads', 'tables', 'tableSize', 'reportInterval', 'prepare', 'cpuMaxPrime', 'memoryBlockSize',
    'memoryTotalSize', 'fileTestMode', 'fileTotalSize',
  ],
  hey: ['concurrency', 'requests', 'method', 'qps', 'timeoutS'],
  wrk: ['threads', 'connections', 'latency', 'timeoutS'],
  fio: ['rw', 'bs', 'size', 'iodepth', 'numjobs', 'ioengine', 'direct', 'rwmixread'],
  'cockroach-workload': ['workload', 'concurrency', 'warehouses', 'readPercent', 'ycsbWorkload', 'init'],
}; // prettier-ignore

/** The executable each tool runs as. */
export const TOOL_BINARY: Record<TTool, string> = {
  pgbench: 'pgbench',
  sysbench: 'sysbench',
  hey: 'hey',
  wrk: 'wrk',
  fio: 'fio',
  'cockroach-workload': 'cockroach',
};

class Params {
  constructor(
    private readonly p: Record<string, unknown>,
    tool: TTool,
  ) {
    const extra = Object.keys(p).filter((k) => !TOOL_KEYS[tool].includes(k));
    if (extra.length) throw new JobError(`params: unknown parameter(s) for ${tool}: ${extra.join(', ')}`);
  }
  int(key: string, min: number, max: number, def?: number): number {
    const v = this.p[key] ?? def;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      throw new JobError(`params.${key}: must be an integer from ${min} to ${max}`);
    return v;
  }
  optInt(key: string, min: number, max: number): number | undefined {
    return this.p[key] === undefined ? undefined : this.int(key, min, max);
  }
  oneOf<T extends string>(key: string, list: readonly T[], def?: T): T {
    const v = this.p[key] ?? def;
    if (typeof v !== 'string' || !(list as readonly string[]).includes(v))
      throw new JobError(`params.${key}: must be one of ${list.join(', ')}`);
    return v as T;
  }
  optOneOf<T extends string>(key: string, list: readonly T[]): T | undefined {
    return this.p[key] === undefined ? undefined : this.oneOf(key, list);
  }
  bool(key: string, def: boolean): boolean {
    const v = this.p[key] ?? def;
    if (typeof v !== 'boolean') throw new JobError(`params.${key}: must be true or false`);
    return v;
  }
  size(key: string, def?: string): string | undefined {
    const v = this.p[key] ?? def;
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !new RegExp(SIZE_PATTERN).test(v))
      throw new JobError(`params.${key}: must be a size like 4k, 64M or 1G`);
    return v;
  }
}

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const SAFE = /^[^\s\x00-\x1f\x7f-][^\s\x00-\x1f\x7f]*$/;

/** Resolves `secret:<name>` from the agent's config; the value is checked like any target. */
export function resolveTarget(target: string, secrets: Record<string, string>): string {
  if (!target.startsWith('secret:')) return target;
  const name = target.slice(7);
  if (!new RegExp(SECRET_NAME_PATTERN).test(name)) throw new JobError(`target: invalid secret name`);
  const v = secrets[name];
  if (v === undefined)
    throw new JobError(`target: secret '${name}' is not defined in this agent's jobs.secrets`);
  return v;
}

function url(target: string, protocols: string[], what: string): URL {
  if (!SAFE.test(target) || target.length > 2048)
    throw new JobError(`target: must be ${what} without spaces or control characters`);
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    throw new JobError(`target: must be ${what}`);
  }
  if (!protocols.includes(u.protocol) || !u.hostname) throw new JobError(`target: must be ${what}`);
  return u;
}

function pgUrl(target: string): URL {
  const u = url(target, ['postgres:', 'postgresql:'], 'a postgres(ql):// URL');
  const bad = [...u.searchParams.keys()].filter((k) => !(PG_URL_PARAMS as readonly string[]).includes(k));
  if (bad.length) throw new JobError(`target: URL parameter(s) not allowed: ${bad.join(', ')}`);
  return u;
}

/** A postgres URL without its password (argv is visible in ps) and the password as PGPASSWORD. */
function pgConn(target: string): { conn: string; env: Record<string, string> } {
  const u = pgUrl(target);
  const env: Record<string, string> = {};
  if (u.password) {
    env.PGPASSWORD = decodeURIComponent(u.password);
    u.password = '';
  }
  return { conn: u.toString(), env };
}

function dir(target: string, fallback: string): string {
  if (target === '') return fallback;
  if (!/^\/[A-Za-z0-9_./@+-]*$/.test(target) || target.split('/').includes('..'))
    throw new JobError('target: must be an absolute directory path');
  return target;
}

/** Database options for sysbench from a postgres or mysql URL; the password goes in `env`, not argv. */
function sysbenchDb(
  target: string,
  env: Record<string, string>,
  secretFile: string,
  files: NonNullable<TPlan['files']>,
): string[] {
  const proto = target.split(':', 1)[0];
  const mysql = proto === 'mysql';
  const u = mysql ? url(target, ['mysql:'], 'a mysql:// URL') : pgUrl(target);
  const d = mysql ? 'mysql' : 'pgsql';
  const db = decodeURIComponent(u.pathname.replace(/^\//, ''));
  const out = [`--db-driver=${d}`, `--${d}-host=${u.hostname.replace(/^\[|\]$/g, '')}`];
  if (u.port) out.push(`--${d}-port=${u.port}`);
  if (u.username) out.push(`--${d}-user=${decodeURIComponent(u.username)}`);
  // pgsql: libpq reads PGPASSWORD when sysbench passes an empty password. mysql: sysbench passes its
  // (empty) --mysql-password as is, so it goes in a 0600 --config-file instead.
  if (u.password && !mysql) env.PGPASSWORD = decodeURIComponent(u.password);
  if (u.password && mysql) {
    // sysbench's config file ends a value at whitespace.
    if (/\s/.test(decodeURIComponent(u.password)))
      throw new JobError('target: sysbench cannot take a MySQL password with whitespace from a file');
    files.push({ path: secretFile, content: `mysql-password=${decodeURIComponent(u.password)}\n` });
    out.push(`--config-file=${secretFile}`);
  }
  if (db) out.push(`--${d}-db=${db}`);
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  const control = /[\x00-\x1f\x7f]/;
  for (const a of out) if (control.test(a)) throw new JobError('target: control characters in the URL');
  return out;
}

/** The plan with its work directory replaced by `dir` (as cwd, as an argument, or as an `--opt=` value). */
export function moveWorkDir(plan: TPlan, dir: string): TPlan {
  const from = plan.workDir;
  if (!from || from === dir) return plan;
  const move = (a: string) =>
    a === from ? dir : a.endsWith(`=${from}`) ? a.slice(0, -from.length) + dir : a;
  return {
    ...plan,
    workDir: dir,
    steps: plan.steps.map((s) => ({ ...s, argv: s.argv.map(move), cwd: s.cwd && move(s.cwd) })),
  };
}

/**
 * The plan aimed at `address`, the one confineHost checked, so that the tool does not look the name up again
 * and a DNS answer that changes after the check (rebinding) cannot aim it elsewhere:
 * - hey and wrk with an http:// URL connect to the address, the URL's host kept as the Host header; https://
 *   keeps the name, which TLS needs for SNI and the certificate check (see the agent README);
 * - pgbench gets `hostaddr=<address>` in its URL: libpq connects there and keeps the name for TLS and .pgpass;
 * - sysbench gets the address as `--pgsql-host`/`--mysql-host`, except MySQL's `localhost`, which its client
 *   reaches through the Unix socket (no lookup);
 * - `cockroach workload` is left as it is: its pgx driver has no hostaddr, so it always looks the name up.
 */
export function pinAddress(plan: TPlan, address: string | null): TPlan {
  if (!address) return plan;
  const pinHttp = (argv: string[]) => {
    const u = new URL(argv.at(-1)!);
    if (u.protocol !== 'http:') return argv;
    const host = u.host;
    u.hostname = address.includes(':') ? `[${address}]` : address;
    const header = plan.binary === 'hey' ? ['-host', host] : ['-H', `Host: ${host}`];
    return [...argv.slice(0, -1), ...header, u.toString()];
  };
  const pinPg = (argv: string[]) => {
    const u = new URL(argv.at(-1)!);
    u.searchParams.set('hostaddr', address);
    return [...argv.slice(0, -1), u.toString()];
  };
  const pinSysbench = (argv: string[]) =>
    argv.map((a) =>
      a.startsWith('--pgsql-host=') || (a.startsWith('--mysql-host=') && a !== '--mysql-host=localhost')
        ? `${a.slice(0, a.indexOf('=') + 1)}${address}`
        : a,
    );
  const pins: Partial<Record<string, (argv: string[]) => string[]>> = {
    hey: pinHttp,
    wrk: pinHttp,
    pgbench: pinPg,
    sysbench: pinSysbench,
  };
  const pin = pins[plan.binary];
  return pin ? { ...plan, steps: plan.steps.map((s) => ({ ...s, argv: pin(s.argv) })) } : plan;
}

/** The steps of a job: optional pre-steps (init/prepare), an optional warm-up pass, the run, cleanup. */
export function buildPlan(
  job: TJobSpec,
  opts: {
    secrets: Record<string, string>;
    workDir: string;
    limits: TJobLimits;
    /** A private (0700) per-job directory for files that carry a password. */
    secretDir: string;
  },
): TPlan {
  const p = new Params(job.params ?? {}, job.tool);
  const D = job.durationS;
  const W = job.warmupS;
  if (!Number.isInteger(D) || D < 1 || D > 86_400) throw new JobError('durationS: must be 1..86400');
  if (!Number.isInteger(W) || W < 0 || W > 3600) throw new JobError('warmupS: must be 0..3600');
  const target = resolveTarget(job.target ?? '', opts.secrets);
  // Confinement (jobs.allowed_dirs / allowed_hosts / max_file_bytes); the runner also resolves symlinks.
  const refused = jobRefusals(
    { tool: job.tool, params: job.params ?? {}, target },
    opts.limits,
    opts.workDir,
  );
  if (refused.length) throw new JobError(`refused by this agent's job limits: ${refused.join('; ')}`);
  const bin = TOOL_BINARY[job.tool];
  const steps: TStep[] = [];
  const step = (phase: TPhase, args: (string | number)[], extra: Partial<TStep> = {}) =>
    steps.push({ phase, argv: [bin, ...args.map(String)], ...extra });

  switch (job.tool) {
    case 'pgbench': {
      const { conn, env } = pgConn(target);
      const c = p.int('clients', 1, 1000, 1);
      const j = p.int('jobs', 1, 256, 1);
      const b = p.oneOf('builtin', PGBENCH_BUILTINS, 'tpcb-like');
      const proto = p.optOneOf('protocol', PGBENCH_PROTOCOLS);
      const progress = p.int('progress', 1, 60, 1);
      const scale = p.optInt('scale', 1, 100_000);
      const common = ['-c', c, '-j', j, '-b', b, ...(proto ? ['-M', proto] : [])];
      if (p.bool('init', false)) step('pre', ['-i', '-q', '-s', scale ?? 1, conn], { env });
      if (W > 0) step('warmup', [...common, '-T', W, conn], { env });
      step('main', [...common, '-T', D, '-P', progress, conn], { env });
      return { binary: bin, steps };
    }
    case 'sysbench': {
      const test = p.oneOf('test', SYSBENCH_TESTS);
      const common = [
        `--threads=${p.int('threads', 1, 1024, 1)}`,
        `--time=${D}`,
        `--report-interval=${p.int('reportInterval', 1, 60, 1)}`,
        ...(W > 0 ? [`--warmup-time=${W}`] : []),
      ];
      const prepare = p.bool('prepare', true);
      if (test.startsWith('oltp_')) {
        const env: Record<string, string> = {};
        const files: NonNullable<TPlan['files']> = [];
        const db = sysbenchDb(target, env, `${opts.secretDir}/sysbench.cfg`, files);
        const tables = p.optInt('tables', 1, 1000);
        const size = p.optInt('tableSize', 1, 100_000_000);
        const t = [...(tables ? [`--tables=${tables}`] : []), ...(size ? [`--table-size=${size}`] : [])];
        if (prepare) {
          step('pre', [test, ...db, ...t, 'cleanup'], { env });
          step('pre', [test, ...db, ...t, 'prepare'], { env });
        }
        step('main', [test, ...common, ...db, ...t, 'run'], { env });
        return { binary: bin, steps, ...(files.length ? { files } : {}) };
      }
      if (target !== '' && test !== 'fileio') throw new JobError(`target: sysbench ${test} takes no target`);
      if (test === 'cpu') {
        const prime = p.optInt('cpuMaxPrime', 10, 10_000_000);
        step('main', ['cpu', ...common, ...(prime ? [`--cpu-max-prime=${prime}`] : []), 'run']);
        return { binary: bin, steps };
      }
      if (test === 'memory') {
        const bs = p.size('memoryBlockSize');
        const total = p.size('memoryTotalSize');
        step('main', [
          'memory',
          ...common,
          ...(bs ? [`--memory-block-size=${bs}`] : []),
          ...(total ? [`--memory-total-size=${total}`] : []),
          'run',
        ]);
        return { binary: bin, steps };
      }
      const cwd = dir(target, opts.workDir);
      const f = [
        `--file-test-mode=${p.oneOf('fileTestMode', SYSBENCH_FILE_MODES)}`,
        // Always explicit: the size checked against max_file_bytes is the size written.
        `--file-total-size=${p.size('fileTotalSize', SYSBENCH_DEFAULT_FILE_TOTAL)}`,
      ];
      if (prepare) step('pre', ['fileio', ...f, 'prepare'], { cwd });
      step('main', ['fileio', ...common, ...f, 'run'], { cwd });
      step('post', ['fileio', ...f, 'cleanup'], { cwd });
      return { binary: bin, steps, workDir: cwd };
    }
    case 'hey': {
      const u = url(target, ['http:', 'https:'], 'an http(s):// URL').toString();
      const c = p.int('concurrency', 1, 10_000, 10);
      const n = p.optInt('requests', 1, 100_000_000);
      const m = p.oneOf('method', HEY_METHODS, 'GET');
      const q = p.optInt('qps', 1, 1_000_000);
      const t = p.optInt('timeoutS', 1, 600);
      // hey follows redirects by default, to any host: a 302 from an allowed host would aim the load elsewhere.
      const opt = ['-c', c, '-m', m, '-disable-redirects', ...(q ? ['-q', q] : []), ...(t ? ['-t', t] : [])];
      if (W > 0) step('warmup', ['-z', `${W}s`, ...opt, u]);
      step('main', [...(n ? ['-n', n] : ['-z', `${D}s`]), ...opt, u]);
      return { binary: bin, steps };
    }
    case 'wrk': {
      const u = url(target, ['http:', 'https:'], 'an http(s):// URL').toString();
      const t = p.int('threads', 1, 256, 2);
      const c = p.int('connections', 1, 100_000, 10);
      if (c < t) throw new JobError('params.connections: must be at least threads');
      const to = p.optInt('timeoutS', 1, 600);
      // wrk never follows redirects: its response_complete counts the status and writes the next request on the
      // same connection (Location is not read). redirects.test.ts checks it with the real binary.
      const opt = ['-t', t, '-c', c, ...(to ? ['--timeout', `${to}s`] : [])];
      if (W > 0) step('warmup', [...opt, '-d', `${W}s`, u]);
      step('main', [...opt, '-d', `${D}s`, ...(p.bool('latency', true) ? ['--latency'] : []), u]);
      return { binary: bin, steps };
    }
    case 'fio': {
      const cwd = dir(target, opts.workDir);
      const mix = p.optInt('rwmixread', 0, 100);
      step('main', [
        '--name=clusterscope',
        `--rw=${p.oneOf('rw', FIO_RW, 'randread')}`,
        `--bs=${p.size('bs', '4k')}`,
        `--size=${p.size('size', '64M')}`,
        `--iodepth=${p.int('iodepth', 1, 1024, 1)}`,
        `--numjobs=${p.int('numjobs', 1, 64, 1)}`,
        `--ioengine=${p.oneOf('ioengine', FIO_ENGINES, 'psync')}`,
        `--direct=${p.bool('direct', false) ? 1 : 0}`,
        ...(mix !== undefined ? [`--rwmixread=${mix}`] : []),
        '--time_based',
        `--runtime=${D}`,
        ...(W > 0 ? [`--ramp_time=${W}`] : []),
        '--group_reporting',
        `--directory=${cwd}`,
      ]);
      return { binary: bin, steps, workDir: cwd };
    }
    case 'cockroach-workload': {
      // cockroach workload takes only a URL; its pgx driver reads PGPASSWORD when the URL has none. It cannot be
      // pinned to the checked address (pgx has no hostaddr), so it resolves the name itself: see pinAddress.
      const { conn, env } = pgConn(target);
      const w = p.oneOf('workload', COCKROACH_WORKLOADS);
      const wh = p.optInt('warehouses', 1, 100_000);
      const rp = p.optInt('readPercent', 0, 100);
      const y = p.optOneOf('ycsbWorkload', YCSB_WORKLOADS);
      const opt = [
        ...(wh ? [`--warehouses=${wh}`] : []),
        ...(rp !== undefined && w === 'kv' ? [`--read-percent=${rp}`] : []),
        ...(y && w === 'ycsb' ? [`--workload=${y}`] : []),
      ];
      if (p.bool('init', false)) step('pre', ['workload', 'init', w, ...opt, conn], { env });
      step(
        'main',
        [
          'workload',
          'run',
          w,
          `--duration=${D}s`,
          `--concurrency=${p.int('concurrency', 1, 10_000, 8)}`,
          '--display-every=1s',
          ...(W > 0 ? [`--ramp=${W}s`] : []),
          ...opt,
          conn,
        ],
        { env },
      );
      return { binary: bin, steps };
    }
  }
  throw new JobError(`tool: unknown tool '${String(job.tool)}'`);
}
