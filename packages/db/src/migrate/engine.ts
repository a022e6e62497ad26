/**
 * Loads Prisma's schema engine (WASM) and drives it through a PostgreSQL driver adapter.
 *
 * The glue JS comes from `@prisma/schema-engine-wasm` (pinned), the wasm binary from the
 * `prisma` CLI package (the build matching Prisma 7.10.1; same import/export ABI).
 * See DESIGN.md "Prisma migrations offline" for the five adapter fixes applied here.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type SqlResultSet,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
} from '@prisma/driver-adapter-utils';
import type { SchemaEngine as TSchemaEngine } from '@prisma/schema-engine-wasm';
import pg from 'pg';

export type { TSchemaEngine };

const require = createRequire(import.meta.url);

/** Where the engine wasm lives: the `prisma` CLI build (engine matching Prisma 7.10.1). */
export function resolveEngineWasmPath(): string {
  return join(dirname(require.resolve('prisma/package.json')), 'build', 'schema_engine_bg.wasm');
}

type TGlue = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');
let gluePromise: Promise<TGlue> | undefined;

/** The slice of the WebAssembly global we use (Node 20's @types lack it without the DOM lib). */
interface TWasmApi {
  instantiate(
    bytes: Uint8Array,
    imports: Record<string, unknown>,
  ): Promise<{ instance: { exports: Record<string, unknown> } }>;
}

let lastPanic: string | null = null;

/** Message of the last engine panic, if any (the wasm reports it through this global). */
export function takeEnginePanic(): string | null {
  const msg = lastPanic;
  lastPanic = null;
  return msg;
}

async function loadGlue(): Promise<TGlue> {
  gluePromise ??= (async () => {
    (globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY = {
      set_message: (message: string) => {
        lastPanic = message;
      },
    };
    const glue = await import('@prisma/schema-engine-wasm/schema_engine_bg');
    const bytes = await readFile(resolveEngineWasmPath());
    const { instance } = await (globalThis as unknown as { WebAssembly: TWasmApi }).WebAssembly.instantiate(
      bytes,
      {
        './schema_engine_bg.js': glue,
      },
    );
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start: () => void }).__wbindgen_start();
    return glue;
  })();
  return gluePromise;
}

/** Version string of the loaded engine (for diagnostics). */
export async function getEngineVersion(): Promise<string> {
  return (await loadGlue()).version();
}

const CHAR_OID = 18;
const TEXT_OID = 25;
/** Indexes of `"char"` columns, attached to a result's rows array (which the adapter passes through). */
const CHAR_COLUMNS = Symbol('charColumns');
type TTaggedRows = unknown[] & { [CHAR_COLUMNS]?: number[] };

/**
 * Fix 1: PostgreSQL `"char"` (OID 18) is unknown to the stock adapter ("could not be deserialized").
 * Decode it as text at the driver level, remember the columns, and report them as `Character`,
 * which the schema describer requires (e.g. `pg_constraint.contype`).
 */
function patchFields<T>(result: T): T {
  const results = Array.isArray(result) ? result : [result];
  for (const r of results as Array<
    { fields?: Array<{ dataTypeID: number }>; rows?: TTaggedRows } | undefined
  >) {
    const charColumns: number[] = [];
    r?.fields?.forEach((field, i) => {
      if (field.dataTypeID !== CHAR_OID) return;
      field.dataTypeID = TEXT_OID;
      charColumns.push(i);
    });
    if (charColumns.length && r?.rows) r.rows[CHAR_COLUMNS] = charColumns;
  }
  return result;
}

function markCharColumns(result: SqlResultSet): SqlResultSet {
  const charColumns = (result.rows as TTaggedRows)[CHAR_COLUMNS];
  for (const i of charColumns ?? []) result.columnTypes[i] = ColumnTypeEnum.Character;
  return result;
}

class CharAsTextClient extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super(config);
    const original = this.query.bind(this) as (...args: unknown[]) => unknown;
    const patched = (...args: unknown[]): unknown => {
      const last = args.at(-1);
      if (typeof last === 'function') {
        args[args.length - 1] = (err: unknown, res: unknown) => last(err, err ? res : patchFields(res));
        return original(...args);
      }
      const out = original(...args);
      return out instanceof Promise ? out.then(patchFields) : out;
    };
    this.query = patched as pg.Client['query'];
  }
}

/** Fix 2: connection settings from parsed URL fields (so `database` can be overridden). */
export function parsePgUrl(url: string): { config: pg.PoolConfig; schema?: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error('DATABASE_URL: not a valid URL');
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new Error(`DATABASE_URL: unsupported protocol "${u.protocol}" (expected postgresql://)`);
  }
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!database) throw new Error('DATABASE_URL: missing database name in the path');
  const sslmode = u.searchParams.get('sslmode');
  const config: pg.PoolConfig = {
    host: decodeURIComponent(u.hostname.replace(/^\[|\]$/g, '')) || '127.0.0.1',
    port: u.port ? Number(u.port) : 5432,
    user: decodeURIComponent(u.username) || undefined,
    password: decodeURIComponent(u.password) || undefined,
    database,
    ssl: sslmode && sslmode !== 'disable' ? { rejectUnauthorized: sslmode === 'verify-full' } : undefined,
    max: 4,
    Client: CharAsTextClient as unknown as typeof pg.Client,
  };
  return { config, schema: u.searchParams.get('schema') ?? undefined };
}

/** Fixes 1 and 4 on top of the stock adapter: `"char"` columns, and run a migration script as one simple-protocol query (no splitting on `;`). */
function withWholeScript(adapter: SqlDriverAdapter, onDispose: () => Promise<void>): SqlDriverAdapter {
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: async (q: SqlQuery) => markCharColumns(await adapter.queryRaw(q)),
    executeRaw: (q: SqlQuery) => adapter.executeRaw(q),
    startTransaction: (level) => adapter.startTransaction(level),
    getConnectionInfo: adapter.getConnectionInfo ? () => adapter.getConnectionInfo!() : undefined,
    // Empty `values` keeps pg on the simple protocol, which accepts multi-statement scripts.
    executeScript: async (script: string) => {
      await adapter.executeRaw({ sql: script, args: [], argTypes: [] });
    },
    dispose: async () => {
      await adapter.dispose();
      await onDispose();
    },
  };
}

/** Migration-aware adapter factory with the shadow-database fixes; `close()` ends every pool it made. */
export class MigrationAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'postgres' as const;
  readonly adapterName = '@prisma/adapter-pg';
  private readonly pools = new Set<pg.Pool>();
  private readonly shadowDbs = new Set<string>();
  private readonly config: pg.PoolConfig;
  private readonly schema?: string;

  constructor(url: string) {
    const parsed = parsePgUrl(url);
    this.config = parsed.config;
    this.schema = parsed.schema;
  }

  private newPool(database?: string): pg.Pool {
    const pool = new pg.Pool({ ...this.config, ...(database ? { database } : {}) });
    pool.on('error', () => undefined);
    this.pools.add(pool);
    return pool;
  }

  private async endPool(pool: pg.Pool): Promise<void> {
    if (!this.pools.delete(pool)) return;
    await pool.end().catch(() => undefined);
  }

  async connect(): Promise<SqlDriverAdapter> {
    const pool = this.newPool();
    const adapter = await new PrismaPg(pool, { schema: this.schema }).connect();
    return withWholeScript(adapter, () => this.endPool(pool));
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    const name = `prisma_migrate_shadow_db_${randomUUID()}`;
    await this.admin((c) => c.query(`CREATE DATABASE "${name}"`));
    this.shadowDbs.add(name);
    const pool = this.newPool(name);
    const adapter = await new PrismaPg(pool).connect();
    // Fix 3: close the shadow pool before dropping the shadow database.
    return withWholeScript(adapter, async () => {
      await this.endPool(pool);
      await this.dropShadow(name);
    });
  }

  private async admin<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const pool = this.newPool();
    try {
      const client = await pool.connect();
      try {
        return await fn(client);
      } finally {
        client.release();
      }
    } finally {
      await this.endPool(pool);
    }
  }

  private async dropShadow(name: string): Promise<void> {
    if (!this.shadowDbs.delete(name)) return;
    await this.admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  }

  /** Ends all pools and drops any shadow database the engine did not dispose of. */
  async close(): Promise<void> {
    await Promise.all([...this.pools].map((p) => this.endPool(p)));
    for (const name of [...this.shadowDbs]) await this.dropShadow(name).catch(() => undefined);
  }
}

export interface TEngineSession {
  engine: TSchemaEngine;
  close(): Promise<void>;
}

/** Creates a schema engine bound to `url` (and its shadow databases) for the given schema files. */
export async function openEngine(
  url: string,
  schemaFiles: Array<{ path: string; content: string }>,
  log: (line: string) => void = () => undefined,
): Promise<TEngineSession> {
  const glue = await loadGlue();
  const factory = new MigrationAdapterFactory(url);
  const engine = await glue.SchemaEngine.new(
    { datamodels: schemaFiles.map((f) => [f.path, f.content] as [string, string]) },
    (line: string) => log(line),
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  return {
    engine,
    async close() {
      try {
        engine.free();
      } finally {
        await factory.close();
      }
    },
  };
}
