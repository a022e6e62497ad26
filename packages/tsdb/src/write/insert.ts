import { INGEST_COLUMNS, INGEST_TABLES, type TEncodedBytes } from '../encode';

/** Inserts one TabSeparated body into a table; rejects with an error naming the table. */
export type TInsertTsv = (table: string, columns: readonly string[], body: Buffer) => Promise<void>;

/** Wraps a raw insert so that its errors name ClickHouse and the table. */
export const namedInsert =
  (insert: TInsertTsv): TInsertTsv =>
  async (table, columns, body) => {
    try {
      await insert(table, columns, body);
    } catch (err) {
      throw new Error(`ClickHouse insert into ${table} failed: ${(err as Error).message}`);
    }
  };

/**
 * One body of the parts, a view when there is one part: a run output's samples are tens of MB of rows,
 * and copying them stalls the event loop for as long as their pages take to fault in.
 */
export const joinParts = (parts: readonly Uint8Array[]): Buffer =>
  parts.length === 1
    ? Buffer.from(parts[0].buffer, parts[0].byteOffset, parts[0].byteLength)
    : Buffer.concat(parts);

/**
 * Inserts the batches' rows, one insert per table (from table index `from`). When a coalesced insert
 * fails, that table and the rest are retried one batch at a time, so a batch ClickHouse rejects fails
 * alone instead of every batch it was coalesced with. Returns the batches that failed.
 */
export async function insertBatches<T extends { encoded: TEncodedBytes }>(
  insert: TInsertTsv,
  batches: readonly T[],
  from = 0,
): Promise<Map<T, Error>> {
  for (let i = from; i < INGEST_TABLES.length; i++) {
    const table = INGEST_TABLES[i];
    const parts = batches.flatMap((p) => p.encoded.bodies[table] ?? []);
    if (parts.length === 0) continue;
    try {
      await insert(table, INGEST_COLUMNS[table], joinParts(parts));
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      if (batches.length === 1) return new Map([[batches[0], e]]);
      const failed = new Map<T, Error>();
      for (const p of batches) for (const [q, qe] of await insertBatches(insert, [p], i)) failed.set(q, qe);
      return failed;
    }
  }
  return new Map();
}
