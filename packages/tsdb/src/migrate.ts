import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toClient, type TClickHouse } from './client';

/** Folder with the numbered `NNNN_name.up.sql` files. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

const FILE_RE = /^(\d{4})_([a-z0-9_]+)\.up\.sql$/;
const CLUSTER_RE = /^[A-Za-z0-9_.{}-]+$/;

export interface TMigrationFile {
  version: number;
  name: string;
  file: string;
  sql: string;
  checksum: string;
}

export interface TMigrateOptions {
  /** CLICKHOUSE_CLUSTER: emit `ON CLUSTER '<name>'` and Replicated* engines. */
  cluster?: string;
  /** Defaults to this package's migrations/ folder. */
  dir?: string;
}

export interface TMigrateResult {
  applied: string[];
  skipped: string[];
}

/**
 * Renders the placeholders of a migration:
 * - `{{ON_CLUSTER}}` -> `ON CLUSTER '<cluster>'`, or nothing;
 * - `{{ENGINE:XMergeTree(args)}}` -> `ReplicatedXMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}', args)`,
 *   or `XMergeTree(args)`.
 * Any other `{{...}}` is an error.
 */
export function renderMigration(sql: string, opts: { cluster?: string } = {}): string {
  const { cluster } = opts;
  if (cluster !== undefined && !CLUSTER_RE.test(cluster)) {
    throw new Error(`CLICKHOUSE_CLUSTER must match ${CLUSTER_RE} (got ${JSON.stringify(cluster)})`);
  }
  const out = sql
    .replace(/\{\{ON_CLUSTER\}\}/g, cluster ? `ON CLUSTER '${cluster}'` : '')
    .replace(/\{\{ENGINE:(\w*MergeTree)\(([^)]*)\)\}\}/g, (_m, engine: string, args: string) => {
      if (!cluster) return `${engine}(${args})`;
      const repl = `'/clickhouse/tables/{shard}/{database}/{table}', '{replica}'`;
      return `Replicated${engine}(${args.trim() ? `${repl}, ${args}` : repl})`;
    });
  const left = /\{\{[^}]*\}\}/.exec(out);
  if (left) throw new Error(`unknown migration placeholder ${left[0]}`);
  return out;
}

/** Splits a script into statements at `;` ending a line; `--` comment lines are dropped. */
export function splitStatements(sql: string): string[] {
  const body = sql
    .split('\n')
    .filter((l) => !/^\s*--/.test(l))
    .join('\n');
  return body
    .split(/;[ \t]*(?:\r?\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

const MUTATION_RE = /^\s*(ALTER\s+TABLE\b[\s\S]*\b(UPDATE|DELETE)\b|DELETE\s+FROM\b|TRUNCATE\b)/i;

export function listMigrations(dir: string = MIGRATIONS_DIR): TMigrationFile[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const seen = new Map<number, string>();
  return files.map((file) => {
    const m = FILE_RE.exec(file);
    if (!m) throw new Error(`ClickHouse migration file name ${file} must look like NNNN_name.up.sql`);
    const version = Number(m[1]);
    const dup = seen.get(version);
    if (dup) throw new Error(`ClickHouse migrations ${dup} and ${file} share version ${m[1]}`);
    seen.set(version, file);
    const sql = readFileSync(join(dir, file), 'utf8');
    const checksum = createHash('sha256').update(sql, 'utf8').digest('hex');
    return { version, name: m[2], file, sql, checksum };
  });
}

/**
 * Applies pending migrations in order and records each in `schema_migrations`.
 * An applied file whose checksum changed is an error; a failing statement throws naming the file.
 */
export async function migrate(ch: TClickHouse, opts: TMigrateOptions = {}): Promise<TMigrateResult> {
  const client = toClient(ch);
  const files = listMigrations(opts.dir);
  const render = (sql: string) => renderMigration(sql, { cluster: opts.cluster });
  await client.command({
    query: render(`CREATE TABLE IF NOT EXISTS schema_migrations {{ON_CLUSTER}}
(version UInt32, name String, checksum String, applied_at DateTime64(3, 'UTC'))
ENGINE = {{ENGINE:ReplacingMergeTree(applied_at)}} ORDER BY version`),
  });
  const rs = await client.query({
    query: 'SELECT version, name, checksum FROM schema_migrations FINAL',
    format: 'JSONEachRow',
  });
  const rows = await rs.json<{ version: number | string; name: string; checksum: string }>();
  const applied = new Map(rows.map((r) => [Number(r.version), r]));

  const result: TMigrateResult = { applied: [], skipped: [] };
  for (const m of files) {
    const done = applied.get(m.version);
    if (done) {
      if (done.checksum !== m.checksum) {
        throw new Error(
          `ClickHouse migration ${m.file} changed after it was applied (checksum ${done.checksum.slice(0, 12)} recorded, ${m.checksum.slice(0, 12)} on disk); add a new migration instead`,
        );
      }
      result.skipped.push(m.file);
      continue;
    }
    let statements: string[];
    try {
      statements = splitStatements(render(m.sql));
    } catch (err) {
      throw new Error(`ClickHouse migration ${m.file}: ${(err as Error).message}`);
    }
    for (const [i, stmt] of statements.entries()) {
      if (MUTATION_RE.test(stmt)) {
        throw new Error(
          `ClickHouse migration ${m.file} statement ${i + 1} is a mutation; migrations may not mutate data`,
        );
      }
      try {
        await client.command({ query: stmt });
      } catch (err) {
        throw new Error(
          `ClickHouse migration ${m.file} failed at statement ${i + 1}: ${(err as Error).message}`,
        );
      }
    }
    await client.command({
      query:
        'INSERT INTO schema_migrations SELECT {version:UInt32}, {name:String}, {checksum:String}, now64(3)',
      query_params: { version: m.version, name: m.name, checksum: m.checksum },
    });
    result.applied.push(m.file);
  }
  return result;
}
