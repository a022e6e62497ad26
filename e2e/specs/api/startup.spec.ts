import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { healthy, launch, postgresPids, waitFor } from '../../fixtures/launch';

// Each test starts its own launcher (own DATA_DIR and port) next to the shared e2e server.
test.describe.configure({ mode: 'serial' });
/** Outside embedded/dev starts the launcher requires a secret. */
const SECRET = 'e2e-startup-secret-0123456789abcdef';
const KEY = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

test('a wrong DATABASE_URL fails fast with one line naming PostgreSQL and the address', async () => {
  const t0 = Date.now();
  const l = launch(
    { DATABASE_URL: 'postgresql://u:p@127.0.0.1:1/nope', BETTER_AUTH_SECRET: SECRET, SECRETS_KEY: KEY },
    { port: 3191 },
  );
  const code = await l.exited;
  expect(code).not.toBe(0);
  expect(Date.now() - t0).toBeLessThan(15_000);
  expect(l.output()).toMatch(/PostgreSQL unreachable at 127\.0\.0\.1:1\/nope/);
});

test('a wrong CLICKHOUSE_URL fails start-up naming ClickHouse and the address; Postgres is stopped', async () => {
  const l = launch(
    { CLICKHOUSE_URL: 'http://127.0.0.1:1', BETTER_AUTH_SECRET: SECRET, SECRETS_KEY: KEY },
    { port: 3192 },
  );
  const code = await l.exited;
  expect(code).not.toBe(0);
  expect(l.output()).toMatch(/start-up failed: .*ClickHouse.*127\.0\.0\.1:1/i);
  expect(postgresPids(l.dataDir)).toEqual([]);
});

/** The environment of the web server the launcher `pid` spawned (its child running build/index.js). */
function webServerEnv(pid: number): Map<string, string> {
  for (const d of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== pid || !fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('index.js')) continue;
      const vars = fs.readFileSync(`/proc/${d}/environ`, 'utf8').split('\0').filter(Boolean);
      return new Map(vars.map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]));
    } catch {
      /* gone */
    }
  }
  throw new Error(`no web server under launcher ${pid}`);
}

test('a bad MALLOC_ARENA_MAX stops the launcher naming it', async () => {
  const l = launch({ MALLOC_ARENA_MAX: 'lots' }, { port: 3196 });
  const code = await Promise.race([
    l.exited,
    new Promise((r) => setTimeout(() => r('still running'), 15_000)),
  ]);
  if (code === 'still running') {
    l.child.kill('SIGINT');
    await l.exited;
  }
  expect(code).toBe(2);
  expect(l.output()).toMatch(/invalid MALLOC_ARENA_MAX/);
});

test('Ctrl-C stops embedded Postgres; kill -9 recovers; data survives restarts', async () => {
  const port = 3193;
  const first = launch({ SEED: '1' }, { port });
  await waitFor(() => healthy(port), 90_000, 'first start');
  expect(first.output()).toMatch(/password: \S+/);
  // glibc's malloc arenas: 2, not 8 per core (README, memory).
  expect(webServerEnv(first.child.pid!).get('MALLOC_ARENA_MAX')).toBe('2');
  expect(postgresPids(first.dataDir).length).toBeGreaterThan(0);
  first.child.kill('SIGINT');
  expect(await first.exited).toBe(0);
  await waitFor(() => postgresPids(first.dataDir).length === 0, 15_000, 'postgres to stop after SIGINT');

  const second = launch({ SEED: '1' }, { port, dataDir: first.dataDir });
  await waitFor(() => healthy(port), 90_000, 'second start');
  // The admin login is printed once, at first start only; the seeded data is reused.
  expect(second.output()).not.toMatch(/password:/);
  expect(fs.readFileSync(path.join(first.dataDir, 'admin-login.txt'), 'utf8')).toMatch(/email: admin@/);
  second.child.kill('SIGKILL');
  await second.exited;

  const third = launch({ SEED: '1' }, { port, dataDir: first.dataDir });
  await waitFor(() => healthy(port), 90_000, 'start after kill -9');
  const res = await fetch(`http://127.0.0.1:${port}/api/health`);
  expect(await res.json()).toMatchObject({ status: 'ok', postgres: 'ok', clickhouse: 'ok' });
  third.child.kill('SIGTERM');
  expect(await third.exited).toBe(0);
  await waitFor(() => postgresPids(first.dataDir).length === 0, 15_000, 'postgres to stop after SIGTERM');
});
