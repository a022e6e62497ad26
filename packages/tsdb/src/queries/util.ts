import { toClient, type TClickHouse } from '../client';
import type { TColumn, TColumnKind } from '../encode';

export type TParams = Record<string, unknown>;

/** Runs a parameterised SELECT and returns its JSONEachRow rows (unconverted). */
export async function selectRows<T>(ch: TClickHouse, query: string, params: TParams): Promise<T[]> {
  const rs = await toClient(ch).query({ query, query_params: params, format: 'JSONEachRow' });
  return rs.json<T>();
}

/** ClickHouse numbers may arrive as strings (64-bit quoting); null stays null. */
export const toNum = (x: unknown): number => Number(x);
export const toNumOrNull = (x: unknown): number | null => (x == null ? null : Number(x));
export const toBool = (x: unknown): boolean => x === true || x === 1 || x === 'true' || x === '1';

/** A column read back as JSON: timestamps as epoch ms. */
export const columnSql = (kind: TColumnKind, expr: string): string =>
  kind === 'ts' || kind === 'nts' ? `toUnixTimestamp64Milli(${expr})` : expr;

/** Converts a JSON cell of a column (see columnSql) to its JS value by the column's kind. */
export function readColumn(kind: TColumnKind, v: unknown): unknown {
  switch (kind) {
    case 'string': return String(v);
    case 'bool': return toBool(v);
    case 'uint': case 'float': case 'ts': return toNum(v);
    case 'nuint': case 'nfloat': case 'nts': return toNumOrNull(v);
    default: return v;
  }
} // prettier-ignore

/**
 * The newest row per key of a latest-state table without FINAL: `ORDER BY key, ts DESC LIMIT 1 BY key`
 * over the rows of the pinned primary-key prefix (`where`), read back by name. Right before merges and
 * whatever order rows arrived in, NULLs included (unlike a per-column argMax, which skips NULLs);
 * as cheap as FINAL on a merged table.
 */
export function latestRowSql(
  table: string,
  keys: readonly string[],
  cols: readonly TColumn<never>[],
  where: string,
): string {
  const fields = cols.map((c) => `${columnSql(c.kind, c.name)} AS ${c.name}`).join(', ');
  return `SELECT ${keys.join(', ')}, toUnixTimestamp64Milli(ts) AS ts, ${fields}
          FROM ${table} WHERE ${where}
          ORDER BY ${keys.join(', ')}, ts DESC
          LIMIT 1 BY ${keys.join(', ')}`;
}

/** Validates a [from, to) window in epoch ms. */
export function assertRange(from: number, to: number): void {
  if (!Number.isSafeInteger(from) || from < 0)
    throw new Error(`from must be epoch milliseconds, got ${from}`);
  if (!Number.isSafeInteger(to) || to < 0) throw new Error(`to must be epoch milliseconds, got ${to}`);
  if (to <= from) throw new Error(`to (${to}) must be after from (${from})`);
}

/** SQL for a DateTime64(3, 'UTC') built from an Int64 epoch-ms parameter. */
export const msParam = (name: string) => `fromUnixTimestamp64Milli({${name}:Int64}, 'UTC')`;

/**
 * Runs a parameterised SELECT in RowBinary and returns a reader over the bytes: the cheapest format
 * for ClickHouse to write and for us to read (no number formatting or parsing). The query must give
 * every column an exact type the reader has an accessor for (cast numbers to Float64).
 */
export async function selectRowBinary(
  ch: TClickHouse,
  query: string,
  params: TParams,
): Promise<RowBinaryReader> {
  const rs = await toClient(ch).exec({ query: `${query}\nFORMAT RowBinary`, query_params: params });
  const chunks: Buffer[] = [];
  for await (const c of rs.stream) chunks.push(c as Buffer);
  return new RowBinaryReader(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
}

/** How a RowBinary column is read: Float64 (a NULL must be made NaN in SQL, e.g. `ifNull(x, nan)`) or String. */
export type TRbKind = 'f64' | 'str';
/** A RowBinary SELECT described once: output name -> [SQL expression, kind]; key order = column order. */
export type TRbColumns = Readonly<Record<string, readonly [sql: string, kind: TRbKind]>>;
const RB_CAST: Record<TRbKind, (sql: string) => string> = {
  f64: (x) => `toFloat64(${x})`,
  str: (x) => `toString(${x})`,
};

/**
 * The SELECT list of a column description: each expression cast to the type its reader expects, not
 * aliased (so ORDER BY still sees the source columns).
 */
export const rbSelectList = (cols: TRbColumns): string =>
  Object.values(cols)
    .map(([sql, kind]) => RB_CAST[kind](sql))
    .join(', ');

/**
 * Row-at-a-time reader of a described RowBinary result: `at` maps each column name to its slot;
 * `next()` fills `num` (numbers) and `str` (strings) for the next row, reusing both
 * arrays (no per-row objects), and returns false at the end. A string equal to the column's previous
 * one is not decoded again: it is the same string (so `===` against the previous row is cheap).
 */
export function rbRows<C extends TRbColumns>(rb: RowBinaryReader, cols: C) {
  const names = Object.keys(cols) as (keyof C & string)[];
  const kinds = names.map((n) => cols[n][1]);
  const at = Object.fromEntries(names.map((n, j) => [n, j])) as Record<keyof C, number>;
  const num = new Float64Array(names.length);
  const str: string[] = names.map(() => '');
  const memo = names.map(() => ({ s: '', at: 0, len: 0 }));
  return {
    at,
    num,
    str,
    next(): boolean {
      if (rb.done) return false;
      for (let j = 0; j < kinds.length; j++) {
        const k = kinds[j];
        if (k === 'f64') num[j] = rb.f64();
        else str[j] = rb.str(memo[j]);
      }
      return true;
    },
  };
}

/** Sequential reader of RowBinary rows; throws naming the byte offset when the data ends early. */
export class RowBinaryReader {
  private pos = 0;
  private readonly view: DataView;
  constructor(private readonly buf: Buffer) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  private need(n: number): void {
    if (this.pos + n > this.buf.length)
      throw new Error(
        `ClickHouse RowBinary: data ends at byte ${this.buf.length}, needed ${n} more at ${this.pos}`,
      );
  }

  /** Whether the `len` bytes at `a` equal the `blen` bytes at `b` (a loop: short strings, no native call). */
  private same(a: number, b: number, len: number, blen: number): boolean {
    if (len !== blen) return false;
    const buf = this.buf;
    for (let i = 0; i < len; i++) if (buf[a + i] !== buf[b + i]) return false;
    return true;
  }

  /** UInt8 (also Bool). */
  u8(): number {
    this.need(1);
    return this.buf[this.pos++];
  }

  /** Float64. */
  f64(): number {
    this.need(8);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** Nullable(Float64). */
  f64OrNull(): number | null {
    return this.u8() === 1 ? null : this.f64();
  }

  /**
   * String (LEB128 length + UTF-8 bytes). With `memo` (the previous string read into it, and where its
   * bytes were), equal bytes give the previous string back without decoding.
   */
  str(memo?: { s: string; at: number; len: number }): string {
    let len = 0;
    let shift = 0;
    for (;;) {
      const b = this.u8();
      len += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) break;
      shift += 7;
    }
    this.need(len);
    const at = this.pos;
    this.pos += len;
    if (!memo) return this.buf.toString('utf8', at, at + len);
    if (!this.same(memo.at, at, len, memo.len)) memo.s = this.buf.toString('utf8', at, at + len);
    memo.at = at;
    memo.len = len;
    return memo.s;
  }
}
