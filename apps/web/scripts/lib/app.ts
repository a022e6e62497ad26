/** Helpers for scripts that start their own app instance (bench:ingest, bench:pages). */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from './env';

export const WEB = path.join(REPO_ROOT, 'apps/web');
export const TSX = path.join(WEB, 'node_modules/tsx/dist/cli.mjs');

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Runs a TypeScript script of apps/web (e.g. the admin CLI) to completion; resolves with its stdout. */
export function runScript(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [TSX, ...args], { cwd: WEB, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d));
    p.stderr.on('data', (d: Buffer) => (err += d));
    p.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${args[0]} failed: ${err || out}`)),
    );
  });
}

export async function waitHealthy(base: string, app: ChildProcess, ms = 300_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (app.exitCode !== null) throw new Error('the app exited during start-up');
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the app did not become healthy');
}

/** Environment for a launcher on loopback with embedded databases in `dataDir` (no demo cluster). */
export function appEnv(dataDir: string, port: number, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    ORIGIN: base,
    DEMO: '0',
    ...extra,
  };
  delete env.DATABASE_URL;
  delete env.CLICKHOUSE_URL;
  return env;
}

/**
 * Stops the embedded Postgres of `dataDir` if it outlived the app (the launcher runs under tsx, which does
 * not always wait for it): SIGINT (fast shutdown), then SIGKILL after 15 s.
 */
export async function stopLeftoverPostgres(dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
  const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : 0;
  const alive = () => {
    try {
      process.kill(pid, 0);
      return existsSync(pidFile);
    } catch {
      return false;
    }
  };
  if (!(pid > 0) || !alive()) return;
  for (const [sig, ms] of [
    ['SIGINT', 15_000],
    ['SIGKILL', 5_000],
  ] as const) {
    if (!alive()) return;
    console.error(`stopping the leftover PostgreSQL (pid ${pid}, ${sig})`);
    process.kill(pid, sig);
    for (const until = Date.now() + ms; alive() && Date.now() < until; )
      await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts the launcher (production build) and waits until it answers; `stop()` ends it (SIGTERM, 15 s) and an
 * embedded PostgreSQL of its DATA_DIR that outlived it.
 */
export async function startApp(env: NodeJS.ProcessEnv) {
  const app = spawn(process.execPath, [TSX, 'scripts/launch.ts'], {
    cwd: WEB,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = async () => {
    if (app.exitCode === null && app.signalCode === null) {
      app.kill('SIGTERM');
      await new Promise((r) => {
        const t = setTimeout(r, 15_000);
        app.once('exit', () => {
          clearTimeout(t);
          r(null);
        });
      });
    }
    if (env.DATA_DIR) await stopLeftoverPostgres(env.DATA_DIR);
  };
  try {
    await waitHealthy(`http://127.0.0.1:${env.PORT}`, app);
  } catch (err) {
    await stop();
    throw err;
  }
  return { app, stop };
}
