import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import {
  ClickHouseLogLevel,
  createClient,
  type ClickHouseClient,
  type ClickHouseClientConfigOptions,
} from '@clickhouse/client';
import { chdbPool } from './chdb-pool';

export type TChClient = ClickHouseClient;

/** An open ClickHouse handle: the official client plus how it was reached. */
export interface TTsdb {
  client: TChClient;
  kind: 'http' | 'chdb';
  /** Where it points, without credentials (URL origin + database, or the chDB data directory). */
  address: string;
  /** Resolves `{ ok: true }` or `{ ok: false, error }` with an error naming ClickHouse and the address. */
  ping(): Promise<TPingResult>;
  /**
   * Inserts a TabSeparated body as is. chDB takes the bytes zero-copy (no JS string round trip);
   * HTTP streams them. Do not touch `body` until the promise settles.
   */
  insertTsv(table: string, columns: readonly string[], body: Buffer): Promise<void>;
  /**
   * Settings for work that should yield the CPU to reads (ingest inserts, the alerting thread's reads).
   * Only for chDB, which runs on the web process's cores; a ClickHouse server schedules its own.
   */
  background: Record<string, number>;
  /**
   * A SELECT's rows as JSONEachRow bytes, unparsed, in their own ArrayBuffer (transferable to the
   * thread that parses them). With chDB it skips the client layer: bound literals, one native call.
   */
  selectJson(
    query: string,
    params: Record<string, unknown>,
    settings?: Record<string, number>,
  ): Promise<Uint8Array>;
  close(): Promise<void>;
}

export type TPingResult = { ok: true } | { ok: false; error: string };

/** Repositories accept either the raw client or the handle. */
export type TClickHouse = TChClient | Pick<TTsdb, 'client'>;

export function toClient(ch: TClickHouse): TChClient {
  return 'client' in ch ? ch.client : ch;
}

/**
 * Settings applied to every query on both backends, so rows look the same:
 * 64-bit integers come back as JSON numbers (repositories still convert with Number()).
 */
export const CLICKHOUSE_SETTINGS = {
  output_format_json_quote_64bit_integers: 0,
} as const;
/** chDB applies settings with `SET` on a pooled connection: every query sets its own priority. */
const CHDB_SETTINGS = {
  ...CLICKHOUSE_SETTINGS,
  os_threads_nice_value_query: 0,
  os_threads_nice_value_materialized_view: 0,
};

/**
 * chDB shares the web process's cores, so what can wait yields to the requests:
 * - background merges run at nice 10 (server setting, fixed when the engine starts);
 * - ingest inserts (their materialized views included) and the alerting thread's reads at nice 5
 *   (query settings, per thread while it runs).
 * Merges at the requests' priority take a large share of a core under heavy ingest. Raising nice needs no
 * privilege (Linux, per thread; ClickHouse ≥ 25.x).
 * Idle threads kept: 16, not ClickHouse's 1000: every idle pool thread keeps its stack and jemalloc thread
 * cache resident in the web process.
 */
const CHDB_ARGS = ['--os_threads_nice_value_merge_mutate=10', '--max_thread_pool_free_size=16'];
/**
 * How often chDB's freed memory goes back to the OS (`SYSTEM JEMALLOC PURGE`). A ClickHouse server's
 * MemoryWorker does this when dirty pages pass a threshold; chDB runs none, so without it jemalloc keeps
 * freed pages resident.
 */
const CHDB_PURGE_MS = 2_000;
/**
 * chDB's jemalloc options (it reads `JE_MALLOC_CONF` when the engine loads; a value already set wins). No
 * per-thread caches: each of chDB's threads, most of them idle pool threads, would keep its own freed blocks;
 * without them an allocation takes a lock on one of jemalloc's per-core arenas.
 */
const CHDB_MALLOC_CONF = 'tcache:false';
const CHDB_BACKGROUND = { os_threads_nice_value_query: 5, os_threads_nice_value_materialized_view: 5 };
/** Connections to the one chDB engine (see chdb-pool.ts); each running query holds a libuv thread (4). */
const CHDB_CONNECTIONS = 3;

/** The open chDB handle by data directory (at most one: chDB allows one per process). */
const engines = new Map<string, Promise<TTsdb>>();

/**
 * Opens ClickHouse over HTTP when `url` is given (CLICKHOUSE_URL, may carry user, password and
 * database), else in-process chDB with its data in `path`. chDB is one native engine per process, so a
 * second open of a path gets the first handle and another path is refused; `close()` evicts it. The web
 * server's composition root opens it once per process, also across vite dev's re-evaluation of modules.
 */
export async function openClickHouse(opts: { url?: string; path: string }): Promise<TTsdb> {
  if (opts.url) return openHttp(opts.url);
  const dir = resolve(opts.path);
  const hit = engines.get(dir);
  if (hit) return hit;
  const other = [...engines.keys()][0];
  if (other !== undefined) {
    throw new Error(
      `ClickHouse (chDB) is already open at ${other} in this process; chDB allows one data directory per process (asked for ${dir})`,
    );
  }
  const p = openChdb(dir).catch((err: unknown) => {
    engines.delete(dir);
    throw err;
  });
  engines.set(dir, p);
  return p;
}

/** Throws an error naming ClickHouse and the address when it does not answer. */
export async function pingClickHouse(ch: TTsdb): Promise<void> {
  const r = await ch.ping();
  if (!r.ok) throw new Error(r.error);
}

function openHttp(url: string): TTsdb {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(
      'CLICKHOUSE_URL is not a valid URL (expected http(s)://user:password@host:8123/database)',
    );
  }
  const db = parsed.pathname.replace(/^\//, '');
  const address = `${parsed.protocol}//${parsed.host}${db ? `/${db}` : ''}`;
  // The client's own log prints a multi-line stack per failed request; every error reaches our caller, which
  // reports it in one line (e.g. the start-up failure naming ClickHouse and the address).
  const client = createClient({
    url,
    clickhouse_settings: { ...CLICKHOUSE_SETTINGS },
    log: { level: ClickHouseLogLevel.OFF },
  });
  return wrap(
    {
      client,
      kind: 'http',
      address,
      insertTsv: (...a) => insertTsvWith(client, ...a),
      background: {},
      selectJson: (query, params, settings = {}) => selectJsonWith(client, query, params, settings),
    },
    async () => {},
  );
}

/** A TabSeparated insert through the official client (streams the bytes). */
export async function insertTsvWith(
  client: TChClient,
  table: string,
  columns: readonly string[],
  body: Buffer,
): Promise<void> {
  await client.insert({
    table,
    columns: columns as [string, ...string[]],
    format: 'TabSeparated',
    values: Readable.from([body], { objectMode: false }),
  });
}

async function selectJsonWith(
  client: TChClient,
  query: string,
  params: Record<string, unknown>,
  settings: Record<string, number>,
): Promise<Uint8Array> {
  const rs = await client.query({
    query,
    query_params: params,
    format: 'JSONEachRow',
    clickhouse_settings: settings,
  });
  return new TextEncoder().encode(await rs.text());
}

async function openChdb(dir: string): Promise<TTsdb> {
  mkdirSync(dir, { recursive: true });
  process.env.JE_MALLOC_CONF ??= CHDB_MALLOC_CONF;
  // Lazy: loading the native addon at import time breaks `vite build` (worker thread segfault).
  const [{ Session }, { createChdbConnection }] = await Promise.all([
    import('chdb'),
    import('chdb/connection'),
  ]);
  // The first connection starts the process's engine with its arguments; the client's shares it.
  const engine = new Session(dir, { connectionArgs: CHDB_ARGS });
  const pool = chdbPool(Array.from({ length: CHDB_CONNECTIONS }, () => createChdbConnection({ path: dir })));
  const connection = pool as unknown as NonNullable<ClickHouseClientConfigOptions['connection']>;
  const client = createClient({ connection, clickhouse_settings: { ...CHDB_SETTINGS } });
  const insertTsv = async (table: string, columns: readonly string[], body: Buffer) => {
    if (body.length === 0) return;
    const settings = CHDB_BACKGROUND;
    await pool.run((c) =>
      c.chdb.rawInsert({ table, columns, format: 'TabSeparated', values: body, settings }),
    );
  };
  // The pool's own path (literals, settings), without the client's parsing layer.
  const selectJson: TTsdb['selectJson'] = async (query, params, settings = {}) => {
    const r = await pool.query({
      query: `${query}\nFORMAT JSONEachRow`,
      query_params: params,
      clickhouse_settings: { ...CHDB_SETTINGS, ...settings },
    });
    const chunks: Buffer[] = [];
    for await (const c of r.stream) chunks.push(c as Buffer);
    return new Uint8Array(Buffer.concat(chunks)); // its own ArrayBuffer: transferable
  };
  const parts = {
    client,
    kind: 'chdb',
    address: `chdb:${dir}`,
    insertTsv,
    background: CHDB_BACKGROUND,
    selectJson,
  } as const;
  let purging: Promise<unknown> | null = null;
  const purge = setInterval(() => {
    purging ??= pool
      .command({ query: 'SYSTEM JEMALLOC PURGE' })
      .catch(() => {}) // best effort: the next tick tries again
      .finally(() => (purging = null));
  }, CHDB_PURGE_MS);
  purge.unref();
  return wrap(parts, async () => {
    clearInterval(purge);
    await purging;
    engines.delete(dir);
    engine.close();
  });
}

/** Adds ping and close to a backend's parts. */
function wrap(parts: Omit<TTsdb, 'ping' | 'close'>, onClose: () => Promise<void>): TTsdb {
  const { client, kind, address } = parts;
  let closed = false;
  return {
    ...parts,
    async ping() {
      const what = `ClickHouse (${kind === 'http' ? 'HTTP' : 'chDB'}) at ${address}`;
      if (closed) return { ok: false, error: `${what} is closed` };
      try {
        const r = await client.ping();
        if (r.success) return { ok: true };
        return { ok: false, error: `${what} is unreachable: ${r.error.message}` };
      } catch (err) {
        return { ok: false, error: `${what} is unreachable: ${(err as Error).message ?? String(err)}` };
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await onClose();
      await client.close();
    },
  };
}
