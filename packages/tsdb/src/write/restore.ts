import type { TChClient } from '../client';
import {
  INGEST_COLUMNS,
  INGEST_TABLES,
  TABLE_COLUMNS,
  type TEncodedBytes,
  type TIngestTable,
} from '../encode';
import type { TInsertTsv } from './insert';

/**
 * The natural key of a row per table: the columns (after org_id) that identify one sample. A batch
 * being re-derived after a crash skips each row whose key is already stored (see restoreRows).
 */
export const ROW_KEYS: Record<TIngestTable, readonly string[]> = {
  node_status: ['cluster_id', 'node_id', 'ts'],
  cgroup_usage: ['cluster_id', 'host', 'cgroup', 'ts'],
  host_metrics: ['cluster_id', 'host', 'ts'],
  heartbeats: ['cluster_id', 'agent', 'host', 'ts'],
  bench_samples: ['cluster_id', 'run_id', 'metric', 'ts', 'elapsed_s'],
  metrics: ['cluster_id', 'name', 'node_id', 'host', 'labels', 'ts'],
};
/** Key columns compared as numbers (by their kind in TABLE_COLUMNS). */
const NUMERIC_KEYS = new Set(
  INGEST_TABLES.flatMap((t) =>
    TABLE_COLUMNS[t].filter((c) => c.kind === 'uint' || c.kind === 'float').map((c) => c.name),
  ).filter((c) => Object.values(ROW_KEYS).some((keys) => keys.includes(c))),
);
/**
 * Key columns compared as written (kind `raw`: a Map literal, already quoted): ClickHouse's toString()
 * gives the same text.
 */
const LITERAL_KEYS = new Set(
  INGEST_TABLES.flatMap((t) => TABLE_COLUMNS[t].filter((c) => c.kind === 'raw').map((c) => c.name)),
);
const UNESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', '0': '\0', '\\': '\\' };
const unescapeTsv = (s: string) => s.replace(/\\(.)/g, (_m, c: string) => UNESCAPES[c] ?? c);
/** `seconds.mmm` (see formatTs) -> epoch ms. */
const parseTs = (s: string) => {
  const [sec, frac = '0'] = s.split('.');
  return Number(sec) * 1000 + Number(frac.padEnd(3, '0').slice(0, 3));
};

/** A table's body as lines with their natural keys, and the time span they cover (epoch ms). */
export interface TKeyedRows {
  lines: string[];
  keys: string[];
  from: number;
  to: number;
}

/** Splits a TabSeparated body of `table` into lines and each line's natural key (ROW_KEYS). */
export function keyRows(table: TIngestTable, body: Uint8Array): TKeyedRows {
  const columns = INGEST_COLUMNS[table];
  const keyCols = ROW_KEYS[table];
  const at = keyCols.map((c) => columns.indexOf(c));
  const lines = Buffer.from(body.buffer, body.byteOffset, body.length).toString('utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let from = Infinity;
  let to = -Infinity;
  const keys = lines.map((line) => {
    const f = line.split('\t');
    return JSON.stringify(
      keyCols.map((c, i) => {
        const v = f[at[i]] ?? '';
        if (c === 'ts') {
          const ms = parseTs(v);
          from = Math.min(from, ms);
          to = Math.max(to, ms);
          return ms;
        }
        return NUMERIC_KEYS.has(c) ? Number(v) : LITERAL_KEYS.has(c) ? v : unescapeTsv(v);
      }),
    );
  });
  return { lines, keys, from, to };
}

/** The SELECT list that reads a table's stored natural keys in the form keyRows gives them. */
export const storedKeyColumns = (table: TIngestTable): string =>
  ROW_KEYS[table]
    .map((c) => (c === 'ts' ? 'toUnixTimestamp64Milli(ts)' : NUMERIC_KEYS.has(c) ? c : `toString(${c})`))
    .join(', ');

/** A stored row of storedKeyColumns as the key keyRows gives the same row. */
export const storedKey = (table: TIngestTable, row: readonly unknown[]): string => {
  const keyCols = ROW_KEYS[table];
  return JSON.stringify(
    row.map((v, i) => (keyCols[i] === 'ts' || NUMERIC_KEYS.has(keyCols[i]) ? Number(v) : v)),
  );
};

/**
 * The lines not stored yet, each with its newline, counting repeats (a multiset): a key stored n times
 * covers its first n lines.
 */
export function missingLines(rows: TKeyedRows, storedKeys: readonly string[]): string[] {
  const stored = new Map<string, number>();
  for (const k of storedKeys) stored.set(k, (stored.get(k) ?? 0) + 1);
  const missing: string[] = [];
  rows.lines.forEach((line, i) => {
    const n = stored.get(rows.keys[i]) ?? 0;
    if (n > 0) stored.set(rows.keys[i], n - 1);
    else missing.push(`${line}\n`);
  });
  return missing;
}

/**
 * Completes a batch found in the ledger: per table, inserts only the rows whose natural key
 * (ROW_KEYS) is not stored yet for that org. Returns the rows added.
 */
export async function restoreRows(
  client: TChClient,
  insert: TInsertTsv,
  orgId: string,
  encoded: TEncodedBytes,
): Promise<number> {
  let added = 0;
  for (const table of INGEST_TABLES) {
    const body = encoded.bodies[table];
    if (!body || body.length === 0) continue;
    const rows = keyRows(table, body);
    const rs = await client.query({
      query: `SELECT ${storedKeyColumns(table)} FROM ${table}
              WHERE org_id = {org:String}
                AND ts BETWEEN fromUnixTimestamp64Milli({from:Int64}, 'UTC')
                           AND fromUnixTimestamp64Milli({to:Int64}, 'UTC')`,
      query_params: { org: orgId, from: rows.from, to: rows.to },
      format: 'JSONCompactEachRow',
    });
    const stored = (await rs.json<unknown[]>()).map((row) => storedKey(table, row));
    const missing = missingLines(rows, stored);
    if (missing.length === 0) continue;
    await insert(table, INGEST_COLUMNS[table], Buffer.from(missing.join('')));
    added += missing.length;
  }
  return added;
}
