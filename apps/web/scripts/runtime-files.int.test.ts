/**
 * The web image's runtime file set, as docker/Dockerfile.web builds it (docker/runtime-files.sh, the same
 * script), started the way the image starts it: `node scripts/bin/launch.mjs` with only `node` on the PATH
 * and the image's ENV, against a real external PostgreSQL (Debian's, a throwaway cluster on loopback) and
 * the embedded chDB. No Docker engine runs here; this is what of the image can be run without one.
 * Needs the web and agent builds (`npm test` builds them first) and Debian's postgresql-15 (e2e/ensure-system.sh).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './lib/app';
import { sendIngest, signIn } from './lib/http';
import { REPO_ROOT } from './lib/env';

const PG_BIN = '/usr/lib/postgresql/15/bin';
const MINUTE = 60_000;

/** The runtime stage's `ENV` line of the Dockerfile (NAME=value, values optionally double-quoted). */
function imageEnv(): Record<string, string> {
  const file = fs.readFileSync(path.join(REPO_ROOT, 'docker/Dockerfile.web'), 'utf8');
  const runtime = file.slice(file.lastIndexOf('\nFROM '));
  const line = /^ENV (.+)$/m.exec(runtime)?.[1];
  if (!line) throw new Error('Dockerfile.web: no ENV line in the runtime stage');
  return Object.fromEntries(
    [...line.matchAll(/(\w+)=("[^"]*"|\S+)/g)].map(([, k, v]) => [k, v.replace(/^"|"$/g, '')]),
  );
}

/** Runs a command to completion; rejects with its output when it exits non-zero. */
function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; uid?: number; gid?: number } = {},
): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d));
    p.stderr.on('data', (d: Buffer) => (stderr += d));
    p.on('error', reject);
    p.on('exit', (code) => resolve({ stdout, stderr, code: code ?? 1 }));
  });
}

async function mustRun(...a: Parameters<typeof run>) {
  const r = await run(...a);
  if (r.code !== 0) throw new Error(`${a[0]} ${a[1].join(' ')} exited ${r.code}:\n${r.stderr}${r.stdout}`);
  return r;
}

/** A throwaway PostgreSQL cluster of Debian's server on a free loopback port (as the `postgres` user under root). */
async function startPostgres(base: string) {
  if (!fs.existsSync(`${PG_BIN}/postgres`))
    throw new Error(
      `${PG_BIN}/postgres is missing: run \`sh e2e/ensure-system.sh\` (installs postgresql-15)`,
    );
  const asUser =
    process.getuid?.() === 0
      ? {
          uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
          gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
        }
      : {};
  const dir = path.join(base, 'pg');
  fs.mkdirSync(dir, { mode: 0o700 });
  const password = randomBytes(12).toString('hex');
  fs.writeFileSync(path.join(base, 'pg-password'), password, { mode: 0o644 });
  if (asUser.uid !== undefined) fs.chownSync(dir, asUser.uid, asUser.gid!);
  const port = await freePort();
  await mustRun(
    `${PG_BIN}/initdb`,
    ['-D', dir, '-U', 'clusterscope', `--pwfile=${path.join(base, 'pg-password')}`, '--auth=scram-sha-256'],
    { ...asUser, env: { LANG: 'C', PATH: '/usr/bin:/bin' } },
  );
  const opts = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir}`;
  await mustRun(`${PG_BIN}/pg_ctl`, ['-D', dir, '-o', opts, '-w', '-l', path.join(dir, 'log'), 'start'], {
    ...asUser,
    env: { PATH: '/usr/bin:/bin' },
  });
  const admin = new pg.Client({
    host: '127.0.0.1',
    port,
    user: 'clusterscope',
    password,
    database: 'postgres',
  });
  await admin.connect();
  await admin.query('CREATE DATABASE clusterscope');
  await admin.end();
  return {
    url: `postgresql://clusterscope:${password}@127.0.0.1:${port}/clusterscope`,
    stop: () =>
      run(`${PG_BIN}/pg_ctl`, ['-D', dir, '-m', 'fast', '-w', 'stop'], {
        ...asUser,
        env: { PATH: '/usr/bin:/bin' },
      }),
  };
}

/** Waits until the launcher prints its "ready" line; rejects with its output when it exits first. */
function waitReady(p: ChildProcess, out: { text: string }, ms = 2 * MINUTE): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`launcher not ready after ${ms / 1000}s:\n${out.text}`)), ms);
    const check = () => {
      if (/clusterscope: ready in/.test(out.text)) {
        clearTimeout(t);
        resolve();
      }
    };
    p.stdout!.on('data', check);
    p.on('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`launcher exited (${code}) before ready:\n${out.text}`));
    });
  });
}

describe('the web image runtime file set', () => {
  let base = '';
  let app = '';
  let env: NodeJS.ProcessEnv = {};
  let origin = '';
  let server: ChildProcess | undefined;
  const serverOut = { text: '' };
  let postgres: Awaited<ReturnType<typeof startPostgres>> | undefined;

  /** The admin CLI as the image runs it: plain node from the file set, the image's ENV. */
  const admin = (...args: string[]) =>
    run('node', ['scripts/bin/admin.mjs', ...args], { cwd: path.join(app, 'apps/web'), env });

  beforeAll(async () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterscope-runtime-'));
    // The postgres user must reach its data directory below this one.
    fs.chmodSync(base, 0o755);
    app = path.join(base, 'app');
    await mustRun('sh', ['docker/runtime-files.sh', app], { cwd: REPO_ROOT });
    postgres = await startPostgres(base);

    // Only node on the PATH: no npm, pnpm, tsx or shell tools the image would not have.
    const bin = path.join(base, 'bin');
    fs.mkdirSync(bin);
    fs.symlinkSync(process.execPath, path.join(bin, 'node'));
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    env = {
      ...imageEnv(),
      PATH: bin,
      HOME: base,
      PORT: String(port),
      HOST: '127.0.0.1',
      ORIGIN: origin,
      DATA_DIR: path.join(base, 'data'),
      DATABASE_URL: postgres.url,
      BETTER_AUTH_SECRET: randomBytes(32).toString('base64'),
      SECRETS_KEY: randomBytes(32).toString('base64'),
      ALERT_EVAL_INTERVAL_S: '0',
    };
    server = spawn('node', ['scripts/bin/launch.mjs'], {
      cwd: path.join(app, 'apps/web'),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (d: Buffer) => (serverOut.text += d));
    server.stderr!.on('data', (d: Buffer) => (serverOut.text += d));
    await waitReady(server, serverOut);
  }, 5 * MINUTE);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
    }
    await postgres?.stop();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  }, MINUTE);

  it('has the layout the launcher expects and no sources or pnpm', () => {
    for (const f of [
      'apps/web/build/index.js',
      'apps/web/scripts/bin/launch.mjs',
      'apps/web/scripts/bin/admin.mjs',
      'apps/web/node_modules/chdb/package.json',
      'apps/web/node_modules/pg/package.json',
      'apps/agent/dist/clusterscope.js',
      'packages/tsdb/migrations',
      'prisma/migrations/migration_lock.toml',
    ])
      expect(fs.existsSync(path.join(app, f)), f).toBe(true);
    expect(fs.existsSync(path.join(app, 'apps/web/src'))).toBe(false);
    expect(fs.existsSync(path.join(app, 'apps/web/build/build'))).toBe(false);
  });

  it('starts healthy on the external PostgreSQL with every migration applied', async () => {
    const res = await fetch(`${origin}/api/health`);
    // The server applies the ClickHouse migrations before it answers health at all.
    expect(await res.json()).toMatchObject({ status: 'ok', postgres: 'ok', clickhouse: 'ok' });
    expect(res.status).toBe(200);
    const dirs = fs
      .readdirSync(path.join(REPO_ROOT, 'prisma/migrations'), { withFileTypes: true })
      .filter((d) => d.isDirectory()).length;
    const client = new pg.Client({ connectionString: postgres!.url });
    await client.connect();
    const { rows } = await client.query(
      'SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    await client.end();
    expect(rows[0].n).toBe(dirs);
    // Production defaults: no demo org, and the first-user hint names the image's admin CLI.
    expect(serverOut.text).toContain('create the first user with `node scripts/bin/admin.mjs user create`');
    expect(serverOut.text).not.toContain('npm run admin');
  });

  it('serves the CI CLI bundle at /cli/clusterscope.mjs', async () => {
    const res = await fetch(`${origin}/cli/clusterscope.mjs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-clusterscope-cli-version')).toMatch(/^\d+\.\d+\.\d+/);
    const body = await res.text();
    expect(body).toBe(fs.readFileSync(path.join(REPO_ROOT, 'apps/agent/dist/clusterscope.js'), 'utf8'));
  });

  it(
    'runs the admin CLI with plain node: user, org, cluster, agent enroll; the credential ingests',
    async () => {
      const user = await admin('user', 'create', '--email', 'ops@example.com', '--name', 'Ops');
      expect(user.code, user.stderr).toBe(0);
      expect(user.stdout.trim()).toMatch(/^\S{12,}$/);
      const org = await admin(
        'org',
        'create',
        '--name',
        'Acme',
        '--slug',
        'acme',
        '--owner',
        'ops@example.com',
      );
      expect(org.code, org.stderr).toBe(0);

      // A missing cluster says how to create it, in the command that works in the image.
      const missing = await admin('agent', 'enroll', '--org', 'acme', '--cluster', 'prod', '--name', 'db1');
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(
        'create it with `node scripts/bin/admin.mjs cluster create --org acme --name prod`',
      );
      expect(missing.stderr).toContain('Run `node scripts/bin/admin.mjs --help` for usage.');
      expect(missing.stderr).not.toContain('npm run admin');

      const cluster = await admin('cluster', 'create', '--org', 'acme', '--name', 'prod');
      expect(cluster.code, cluster.stderr).toBe(0);
      expect(cluster.stderr).toContain("created cluster 'prod' in 'acme'");
      const list = await admin('cluster', 'list', '--org', 'acme');
      expect(list.stdout).toContain(`${cluster.stdout.trim()}\tprod`);

      const enroll = await admin('agent', 'enroll', '--org', 'acme', '--cluster', 'prod', '--name', 'db1');
      expect(enroll.code, enroll.stderr).toBe(0);
      expect(enroll.stderr).toContain(`url: ${origin}`);
      const token = enroll.stdout.trim().split('\n').at(-1)!;
      expect(token).toMatch(/^cs_/);

      // The credential is accepted by the server started from the same file set (an empty batch, as --check).
      const batch = () =>
        gzipSync(
          JSON.stringify({
            batchId: `check-${randomBytes(8).toString('hex')}`,
            cluster: 'prod',
            samples: [],
          }),
        );
      const accepted = await sendIngest(origin, token, batch());
      expect(accepted.status, await accepted.text()).toBeLessThan(300);
      expect((await sendIngest(origin, `${token.slice(0, -2)}xx`, batch())).status).toBe(401);

      // The in-app agent guide names the admin CLI as the image runs it.
      const login = path.join(base, 'login');
      fs.mkdirSync(login);
      fs.writeFileSync(
        path.join(login, 'admin-login.txt'),
        `email: ops@example.com\npassword: ${user.stdout.trim()}\n`,
      );
      const page = await fetch(`${origin}/acme/docs/agent`, {
        headers: { cookie: await signIn(origin, login) },
      });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('node scripts/bin/admin.mjs agent enroll --org acme');
      expect(html).not.toContain('npm run admin');
    },
    // Each admin command is a node process of its own: seconds each, tens of seconds on a loaded machine.
    5 * MINUTE,
  );
});
