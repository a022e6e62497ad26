/**
 * Binds query parameters into chDB SQL as typed literals, so the query runs without chdb's parameter
 * binder, which runs one parameterised query at a time in the whole process (its binder state is not
 * thread-safe), so one slow chart query would hold up every health read, ingest ledger lookup and alert
 * read behind it. Only the types this project uses are bound here; anything else returns null and the query
 * goes through chdb's binder as before. Strings become quoted literals with `\` and `'` escaped, so a
 * value can never end its literal; numbers must be integers in range.
 */
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*):([A-Za-z0-9()]+)\}/g;
const INT: Record<string, [bigint, bigint]> = {
  UInt8: [0n, 255n],
  UInt32: [0n, 4294967295n],
  UInt64: [0n, 18446744073709551615n],
  Int64: [-9223372036854775808n, 9223372036854775807n],
};

export function quoteString(s: string): string {
  return `'${s.replace(/[\\'\0]/g, (c) => (c === '\0' ? '\\0' : `\\${c}`))}'`;
}

function literal(type: string, v: unknown): string | null {
  if (type === 'String') return typeof v === 'string' ? quoteString(v) : null;
  if (type === 'Array(String)') {
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return null;
    return `CAST([${v.map(quoteString).join(',')}] AS Array(String))`;
  }
  if (type === 'Float64') return typeof v === 'number' && Number.isFinite(v) ? `CAST(${v} AS Float64)` : null;
  const range = INT[type];
  if (!range) return null;
  let n: bigint;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'string' && /^-?\d{1,20}$/.test(v)) n = BigInt(v);
  else return null;
  if (n < range[0] || n > range[1]) return null;
  return `CAST(${n} AS ${type})`;
}

/** `sql` with every `{name:Type}` replaced by its value's literal, or null when one cannot be bound here. */
export function bindLiterals(sql: string, params: Record<string, unknown>): string | null {
  let ok = true;
  const out = sql.replace(PLACEHOLDER, (m, name: string, type: string) => {
    const lit = Object.hasOwn(params, name) ? literal(type, params[name]) : null;
    if (lit === null) ok = false;
    return lit ?? m;
  });
  return ok ? out : null;
}
