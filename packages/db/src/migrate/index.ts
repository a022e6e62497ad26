/**
 * Offline Prisma migration runner (prisma migrate dev / deploy / status / drift) over the
 * schema engine WASM. Files, checksums and `_prisma_migrations` rows match `prisma migrate deploy`.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MigrationList, SchemaFilter, SchemasContainer } from '@prisma/schema-engine-wasm';
import pg from 'pg';
import { openEngine, parsePgUrl, takeEnginePanic, type TEngineSession } from './engine';

export { getEngineVersion, resolveEngineWasmPath } from './engine';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const DEFAULT_SCHEMA_PATH = join(repoRoot, 'prisma', 'schema.prisma');
export const DEFAULT_MIGRATIONS_DIR = join(repoRoot, 'prisma', 'migrations');
export const LOCKFILE_NAME = 'migration_lock.toml';

export interface TMigratePaths {
  schemaPath?: string;
  migrationsDir?: string;
}
export interface TMigrateOptions extends TMigratePaths {
  log?: (line: string) => void;
}

const NO_FILTER: SchemaFilter = { externalTables: [], externalEnums: [] };

/** Thrown when a migration fails to apply; `migrationName` names it. */
export class MigrationFailedError extends Error {
  constructor(
    readonly migrationName: string | null,
    detail: string,
  ) {
    super(
      migrationName
        ? `migration "${migrationName}" failed to apply: ${detail}`
        : `migrations failed to apply: ${detail}`,
    );
    this.name = 'MigrationFailedError';
  }
}

function resolvePaths(opts: TMigratePaths = {}): { schemaPath: string; migrationsDir: string } {
  return {
    schemaPath: resolve(opts.schemaPath ?? DEFAULT_SCHEMA_PATH),
    migrationsDir: resolve(opts.migrationsDir ?? DEFAULT_MIGRATIONS_DIR),
  };
}

async function readSchema(schemaPath: string): Promise<SchemasContainer> {
  const content = await readFile(schemaPath, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new Error(`cannot read Prisma schema ${schemaPath}: ${err.code ?? err.message}`);
  });
  return { files: [{ path: schemaPath, content }] };
}

/** Reads the migrations folder exactly like the Prisma CLI (`listMigrations`). */
export async function listMigrations(migrationsDir: string): Promise<MigrationList> {
  const lockContent = await readFile(join(migrationsDir, LOCKFILE_NAME), 'utf8').catch(() => null);
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch(() => []);
  const migrationDirectories = await Promise.all(
    entries
      .filter((e) => e.isDirectory())
      .map(async (e) => ({
        path: e.name,
        migrationFile: {
          path: 'migration.sql',
          content: await readFile(join(migrationsDir, e.name, 'migration.sql'), 'utf8').then(
            (value) => ({ tag: 'ok' as const, value }),
            (err: Error) => ({ tag: 'error' as const, value: err.message }),
          ),
        },
      })),
  );
  migrationDirectories.sort((a, b) => a.path.localeCompare(b.path));
  return {
    baseDir: migrationsDir,
    lockfile: { path: LOCKFILE_NAME, content: lockContent },
    migrationDirectories,
    shadowDbInitScript: '',
  };
}

async function withEngine<T>(
  url: string,
  schema: SchemasContainer,
  log: ((line: string) => void) | undefined,
  fn: (s: TEngineSession) => Promise<T>,
): Promise<T> {
  const session = await openEngine(url, schema.files, log).catch((err: unknown) => {
    throw new Error(`schema engine: ${describeEngineError(err)}`);
  });
  try {
    return await fn(session);
  } catch (err) {
    if (err instanceof MigrationFailedError) throw err;
    throw new Error(describeEngineError(err), { cause: err });
  } finally {
    await session.close();
  }
}

/** Message text of an engine error (the engine throws objects or JSON strings). */
export function describeEngineError(err: unknown): string {
  let text: string;
  if (err instanceof Error) text = err.message;
  else if (typeof err === 'string') text = err;
  else {
    try {
      text = JSON.stringify(err);
    } catch {
      text = String(err);
    }
  }
  const panic = takeEnginePanic();
  if (panic) text = `schema engine panicked: ${panic}`;
  // Drop the engine's span trace ("   0: sql_schema_connector::… at …rs:113").
  return text
    .replace(/\n\s+0: [\s\S]*$/, '')
    .replace(/^external connector error\n/, '')
    .trim();
}

interface TMigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
}

async function readMigrationRows(url: string): Promise<TMigrationRow[]> {
  const { config, schema } = parsePgUrl(url);
  const client = new pg.Client(config);
  client.on('error', () => undefined);
  await client.connect();
  try {
    const table = `${client.escapeIdentifier(schema ?? 'public')}."_prisma_migrations"`;
    const { rows: exists } = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [table]);
    if (!exists[0]?.t) return [];
    const { rows } = await client.query<TMigrationRow>(
      `SELECT migration_name, checksum, finished_at, rolled_back_at, logs FROM ${table} ORDER BY started_at, migration_name`,
    );
    return rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function applyPending(
  session: TEngineSession,
  url: string,
  migrationsList: MigrationList,
  log: (line: string) => void,
): Promise<string[]> {
  try {
    const { appliedMigrationNames } = await session.engine.applyMigrations({
      migrationsList,
      filters: NO_FILTER,
    });
    for (const name of appliedMigrationNames) log(`applied ${name}`);
    return appliedMigrationNames;
  } catch (err) {
    const detail = describeEngineError(err);
    const failed = await readMigrationRows(url)
      .then((rows) => rows.filter((r) => !r.finished_at && !r.rolled_back_at).map((r) => r.migration_name))
      .catch(() => []);
    const named =
      failed.at(-1) ?? migrationsList.migrationDirectories.find((d) => detail.includes(d.path))?.path;
    throw new MigrationFailedError(named ?? null, detail);
  }
}

/** `prisma migrate deploy`: applies every pending migration in order. */
export async function deployMigrations(
  url: string,
  opts: TMigrateOptions = {},
): Promise<{ applied: string[] }> {
  const { schemaPath, migrationsDir } = resolvePaths(opts);
  const log = opts.log ?? (() => undefined);
  const schema = await readSchema(schemaPath);
  const migrationsList = await listMigrations(migrationsDir);
  return withEngine(url, schema, undefined, async (session) => ({
    applied: await applyPending(session, url, migrationsList, log),
  }));
}

/** Applied / pending / failed migration names, from `_prisma_migrations` and the folder. */
export async function migrationStatus(
  url: string,
  opts: TMigratePaths = {},
): Promise<{ applied: string[]; pending: string[]; failed: string[] }> {
  const { migrationsDir } = resolvePaths(opts);
  const migrationsList = await listMigrations(migrationsDir);
  const rows = await readMigrationRows(url);
  const applied = rows.filter((r) => r.finished_at && !r.rolled_back_at).map((r) => r.migration_name);
  const failed = rows.filter((r) => !r.finished_at && !r.rolled_back_at).map((r) => r.migration_name);
  const done = new Set([...applied, ...failed]);
  const pending = migrationsList.migrationDirectories.map((d) => d.path).filter((name) => !done.has(name));
  return { applied, pending, failed };
}

/**
 * Drift between schema.prisma and what the migrations folder builds (replayed in a shadow
 * database on the server behind `url`); the live database itself is not compared.
 */
export async function checkDrift(
  url: string,
  opts: TMigratePaths = {},
): Promise<{ drift: boolean; summary: string }> {
  const { schemaPath, migrationsDir } = resolvePaths(opts);
  const schema = await readSchema(schemaPath);
  const migrationsList = await listMigrations(migrationsDir);
  return withEngine(url, schema, undefined, async ({ engine }) => {
    const from = migrationsList.migrationDirectories.length
      ? { tag: 'migrations' as const, ...migrationsList }
      : { tag: 'empty' as const };
    const to = { tag: 'schemaDatamodel' as const, ...schema };
    const human = await engine.diff({ from, to, script: false, exitCode: true, filters: NO_FILTER });
    if (human.exitCode !== 2)
      return { drift: false, summary: 'No difference: migrations match schema.prisma.' };
    const sql = await engine.diff({ from, to, script: true, exitCode: true, filters: NO_FILTER });
    const summary = [
      `schema.prisma differs from ${migrationsDir}:`,
      (human.stdout ?? '').trim(),
      '',
      'SQL a new migration would contain:',
      (sql.stdout ?? '').trim(),
      '',
      'Create it with: pnpm migrate dev <name>',
    ].join('\n');
    return { drift: true, summary };
  });
}

export function validateMigrationName(name: string): string {
  const slug = name.trim().replace(/[\s-]+/g, '_');
  if (!/^[A-Za-z0-9_]{1,200}$/.test(slug)) {
    throw new Error(
      `migration name "${name}" is invalid: use letters, digits, "_" or "-" (1-200 characters)`,
    );
  }
  return slug;
}

const LOCKFILE_CONTENT = (provider: string) =>
  `# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "${provider}"\n`;

/**
 * `prisma migrate dev --name <name>`: applies pending migrations, writes a new migration for the
 * difference to schema.prisma and applies it. Returns the new directory, or null when nothing changed.
 */
export async function createDevMigration(
  url: string,
  name: string,
  opts: TMigrateOptions = {},
): Promise<string | null> {
  const migrationName = validateMigrationName(name);
  const { schemaPath, migrationsDir } = resolvePaths(opts);
  const log = opts.log ?? (() => undefined);
  const schema = await readSchema(schemaPath);
  return withEngine(url, schema, undefined, async (session) => {
    const { engine } = session;
    let migrationsList = await listMigrations(migrationsDir);
    // Fix 5: devDiagnostic before applying / evaluating / creating, and again after applying.
    const diagnostic = await engine.devDiagnostic({ migrationsList, filters: NO_FILTER });
    if (diagnostic.action.tag === 'reset') {
      throw new Error(`the database needs a reset before "migrate dev": ${diagnostic.action.reason}`);
    }
    await applyPending(session, url, migrationsList, log);
    await engine.devDiagnostic({ migrationsList, filters: NO_FILTER });

    const loss = await engine.evaluateDataLoss({ migrationsList, schema, filters: NO_FILTER });
    if (loss.unexecutableSteps.length) {
      throw new Error(`migration cannot run: ${loss.unexecutableSteps.map((s) => s.message).join('; ')}`);
    }
    for (const w of loss.warnings) log(`warning: ${w.message}`);

    const created = await engine.createMigration({
      draft: false,
      migrationName,
      migrationsList,
      schema,
      filters: NO_FILTER,
    });
    if (created.migrationScript === null) {
      log('schema.prisma matches the migrations: no new migration');
      return null;
    }
    const dir = join(migrationsDir, created.generatedMigrationName);
    if (existsSync(dir)) throw new Error(`the migration directory already exists at ${dir}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `migration.${created.extension}`), created.migrationScript, 'utf8');
    await writeFile(join(migrationsDir, LOCKFILE_NAME), LOCKFILE_CONTENT(created.connectorType), 'utf8');
    log(`created ${created.generatedMigrationName}`);

    migrationsList = await listMigrations(migrationsDir);
    await applyPending(session, url, migrationsList, log);
    return dir;
  });
}
