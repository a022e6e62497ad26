import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../test/query';
import { createEmptyTestDatabase, createTestDatabase, dropTestDatabase } from '../../test/pg';
import {
  checkDrift,
  createDevMigration,
  DEFAULT_MIGRATIONS_DIR,
  DEFAULT_SCHEMA_PATH,
  deployMigrations,
  MigrationFailedError,
  migrationStatus,
} from './index';

async function repoMigrationNames(): Promise<string[]> {
  const entries = await readdir(DEFAULT_MIGRATIONS_DIR, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

const urls: string[] = [];
async function emptyDb(): Promise<string> {
  const url = await createEmptyTestDatabase();
  urls.push(url);
  return url;
}

let work: string;
/** A private copy of schema.prisma and prisma/migrations that a test may change. */
async function copyOfPrismaDir(name: string): Promise<{ schemaPath: string; migrationsDir: string }> {
  const dir = join(work, name);
  await mkdir(dir, { recursive: true });
  const schemaPath = join(dir, 'schema.prisma');
  const migrationsDir = join(dir, 'migrations');
  await cp(DEFAULT_SCHEMA_PATH, schemaPath);
  await cp(DEFAULT_MIGRATIONS_DIR, migrationsDir, { recursive: true });
  return { schemaPath, migrationsDir };
}

/** An empty database, and a {@link copyOfPrismaDir} with one more migration, `name`, running `sql`. */
async function withMigration(name: string, sql: string) {
  const paths = await copyOfPrismaDir(name);
  await mkdir(join(paths.migrationsDir, name));
  await writeFile(join(paths.migrationsDir, name, 'migration.sql'), sql);
  return { url: await emptyDb(), paths };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'migrate-test-'));
});
afterAll(async () => {
  await Promise.all(urls.map((u) => dropTestDatabase(u)));
  await rm(work, { recursive: true, force: true });
});

describe('deployMigrations', () => {
  it('applies the init migration with a checksum equal to sha256(migration.sql)', async () => {
    const url = await emptyDb();
    const names = await repoMigrationNames();
    expect(names.some((n) => /^\d{14}_init$/.test(n))).toBe(true);

    const { applied } = await deployMigrations(url);
    expect(applied).toEqual(names);

    const rows = await query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      applied_steps_count: number;
      logs: string | null;
      rolled_back_at: Date | null;
    }>(url, 'SELECT * FROM _prisma_migrations ORDER BY migration_name');
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    for (const row of rows) {
      const sql = await readFile(join(DEFAULT_MIGRATIONS_DIR, row.migration_name, 'migration.sql'));
      expect(row.checksum).toBe(createHash('sha256').update(sql).digest('hex'));
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
      expect(row.applied_steps_count).toBe(1);
      expect(row.logs).toBeNull();
    }
    const tables = await query<{ t: string | null }>(url, `SELECT to_regclass('"Cluster"')::text AS t`);
    expect(tables[0]!.t).toBe('"Cluster"');
  });

  it('applies nothing the second time, and status reports pending then applied', async () => {
    const url = await emptyDb();
    const names = await repoMigrationNames();
    expect(await migrationStatus(url)).toEqual({ applied: [], pending: names, failed: [] });
    await deployMigrations(url);
    expect(await deployMigrations(url)).toEqual({ applied: [] });
    expect(await migrationStatus(url)).toEqual({ applied: names, pending: [], failed: [] });
  });

  it('throws an error naming a failed migration, records it as failed, and never reports success', async () => {
    const broken = '29990101000000_broken';
    const { url, paths } = await withMigration(
      broken,
      'CREATE TABLE "half_done" (id int);\nSELECT * FROM "no_such_table";\n',
    );

    const err = await deployMigrations(url, paths).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MigrationFailedError);
    expect((err as MigrationFailedError).migrationName).toBe(broken);
    expect((err as Error).message).toContain(broken);
    expect((err as Error).message).toContain('no_such_table');

    const status = await migrationStatus(url, paths);
    expect(status.failed).toEqual([broken]);
    expect(status.applied).toEqual(await repoMigrationNames());
    // The whole script ran in one implicit transaction: its first statement was rolled back too.
    expect(
      (await query<{ t: string | null }>(url, `SELECT to_regclass('half_done')::text AS t`))[0]!.t,
    ).toBeNull();
    // A second deploy refuses to continue past the failed migration, still naming it.
    await expect(deployMigrations(url, paths)).rejects.toThrow(broken);
  });

  it('runs a migration script as one query, so $$ bodies with semicolons survive', async () => {
    const name = '29990101000000_function';
    const { url, paths } = await withMigration(
      name,
      'CREATE FUNCTION "answer"() RETURNS int AS $$\nBEGIN\n  PERFORM 1;\n  RETURN 42;\nEND;\n$$ LANGUAGE plpgsql;\n',
    );
    const { applied } = await deployMigrations(url, paths);
    expect(applied.at(-1)).toBe(name);
    expect(await query(url, 'SELECT "answer"() AS a')).toEqual([{ a: 42 }]);
  });
});

describe('checkDrift and createDevMigration', () => {
  it('reports no drift for the committed schema and migrations', async () => {
    const url = await emptyDb();
    expect(await checkDrift(url)).toEqual({
      drift: false,
      summary: expect.stringContaining('No difference'),
    });
  });

  it('detects drift when schema.prisma changes, then dev writes and applies a migration that clears it', async () => {
    const url = await emptyDb();
    const paths = await copyOfPrismaDir('drift');
    const schema = await readFile(paths.schemaPath, 'utf8');
    await writeFile(
      paths.schemaPath,
      `${schema}\nmodel DriftProbe {\n  id    Int    @id\n  label String\n}\n`,
    );

    const drift = await checkDrift(url, paths);
    expect(drift.drift).toBe(true);
    expect(drift.summary).toContain('DriftProbe');
    expect(drift.summary).toContain('CREATE TABLE "DriftProbe"');

    const logs: string[] = [];
    const dir = await createDevMigration(url, 'drift probe', { ...paths, log: (l) => logs.push(l) });
    expect(dir).not.toBeNull();
    expect(dir!).toMatch(/[/]\d{14}_drift_probe$/);
    const sql = await readFile(join(dir!, 'migration.sql'), 'utf8');
    expect(sql).toContain('CREATE TABLE "DriftProbe"');
    expect(await readFile(join(paths.migrationsDir, 'migration_lock.toml'), 'utf8')).toBe(
      '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n',
    );
    const status = await migrationStatus(url, paths);
    expect(status.pending).toEqual([]);
    expect(status.applied.at(-1)).toMatch(/_drift_probe$/);
    expect(await query(url, 'SELECT count(*)::int AS n FROM "DriftProbe"')).toEqual([{ n: 0 }]);

    expect((await checkDrift(url, paths)).drift).toBe(false);
    expect(await createDevMigration(url, 'nothing', paths)).toBeNull();
  });

  it('rejects an invalid migration name', async () => {
    await expect(createDevMigration('postgresql://x@127.0.0.1:1/x', 'bad/name')).rejects.toThrow(
      /migration name "bad\/name" is invalid/,
    );
  });
});

describe('createTestDatabase', () => {
  it('copies the migrated template', async () => {
    const url = await createTestDatabase();
    urls.push(url);
    expect(await migrationStatus(url)).toEqual({
      applied: await repoMigrationNames(),
      pending: [],
      failed: [],
    });
  });
});
