import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { launch, WEB_DIR } from '../../fixtures/launch';

/** The built server started directly (as in production), without BETTER_AUTH_SECRET. */
test('with NODE_ENV=production the server refuses to start without BETTER_AUTH_SECRET, in one clear line', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', PORT: '0', HOST: '127.0.0.1' };
  delete env.BETTER_AUTH_SECRET;
  env.DATABASE_URL = 'postgresql://nobody:nothing@127.0.0.1:1/none';
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-e2e-defaults-'));
  env.CLICKHOUSE_PATH = path.join(tmp, 'clickhouse');
  const child = spawn(
    process.execPath,
    [path.join(WEB_DIR, process.env.WEB_BUILD_DIR ?? 'build', 'index.js')],
    {
      cwd: WEB_DIR,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (c) => {
      clearTimeout(t);
      resolve(c);
    });
  });
  fs.rmSync(tmp, { recursive: true, force: true });
  expect(code, out).toBe(1);
  const lines = out
    .trim()
    .split('\n')
    .filter((l) => /BETTER_AUTH_SECRET/.test(l));
  expect(lines, out).toHaveLength(1);
  expect(lines[0]).toMatch(/^clusterscope: start-up failed: .*BETTER_AUTH_SECRET is required/);
});

test('the launcher generates a secret only for embedded/dev starts', async () => {
  const env = { DATABASE_URL: 'postgresql://u:p@127.0.0.1:1/nope' };
  const l = launch(env, { port: 3194 });
  expect(await l.exited).toBe(1);
  expect(l.output().trim()).toBe(
    'clusterscope: BETTER_AUTH_SECRET is required with an external database (e.g. `openssl rand -base64 32`)',
  );
  expect(fs.existsSync(path.join(l.dataDir, 'auth-secret'))).toBe(false);
  fs.rmSync(l.dataDir, { recursive: true, force: true });
});
