import { toClient, type TClickHouse } from '../client';

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

/** Validates a [from, to) window in epoch ms. */
export function assertRange(from: number, to: number): void {
  if (!Number.isSafeInteger(from) || from < 0)
    throw new Error(`from must be epoch milliseconds, got ${from}`);
  if (!Number.isSafeInteger(to) || to < 0) throw new Error(`to must be epoch milliseconds, got ${to}`);
  if (to <= from) throw new Error(`to (${to}) must be after from (${from})`);
}

/** SQL for a DateTime64(3, 'UTC') built from an Int64 epoch-ms parameter. */
export const msParam = (name: string) => `fromUnixTimestamp64Milli({${name}:Int64}, 'UTC')`;
