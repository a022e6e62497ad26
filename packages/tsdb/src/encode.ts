import type {
  TCgroupUsageSample,
  THeartbeatSample,
  THostMetricsSample,
  TMetricSample,
  TNodeStatusSample,
  TSample,
} from '@clusterscope/schema';

/**
 * TabSeparated encoders for the raw tables, written byte by byte into reusable buffers. Each table is
 * described once, as a list of columns (TABLE_COLUMNS): that list gives INGEST_COLUMNS, drives the
 * encoder, and the repositories build their SELECTs and readers from it (see COLUMN_SQL / readColumn).
 */

export const INGEST_TABLES = [
  'node_status',
  'cgroup_usage',
  'host_metrics',
  'heartbeats',
  'bench_samples',
  'metrics',
] as const;
export type TIngestTable = (typeof INGEST_TABLES)[number];

export class EncodeError extends Error {}

const TSV_NEEDS = /[\\\t\n\r\0]/;
const TSV_ALL = /[\\\t\n\r\0]/g;
// The characters ClickHouse escapes when it writes a quoted string, so a quoted value reads back as
// the same text (toString of a Map, compared by the writer's restoreRows).
const QUOTED_ALL = /[\\'\t\n\r\0\b\f]/g;
const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  "'": "\\'",
};
const escapeChar = (c: string) => ESCAPES[c];

/** A top-level TabSeparated string field. */
export function escapeTsv(s: string): string {
  if (typeof s !== 'string') throw new EncodeError(`expected a string, got ${typeof s}`);
  return TSV_NEEDS.test(s) ? s.replace(TSV_ALL, escapeChar) : s;
}

/** A string inside an array: single-quoted with backslash escapes (no raw tab/newline remains). */
export function quoteString(s: string): string {
  if (typeof s !== 'string') throw new EncodeError(`expected a string, got ${typeof s}`);
  return `'${s.replace(QUOTED_ALL, escapeChar)}'`;
}

/** Epoch ms -> `seconds.mmm`, which DateTime64(3) parses exactly. */
export function formatTs(ms: number, field = 'ts'): string {
  if (!Number.isSafeInteger(ms) || ms < 0)
    throw new EncodeError(`${field} must be epoch milliseconds, got ${ms}`);
  const s = Math.floor(ms / 1000);
  const f = ms - s * 1000;
  return `${s}.${f < 10 ? '00' : f < 100 ? '0' : ''}${f}`;
}

const NULL_FIELD = 0x5c4e; // "\N"
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
/** "00".."99" as byte pairs. */
const PAIRS = Buffer.from(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0')).join(''));
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * A growable byte buffer that rows are written into field by field: no intermediate strings, so the
 * ingest hot path makes almost no garbage (template strings + join spent half their time in GC).
 * One per table, reused from batch to batch.
 */
class Tsv {
  buf = Buffer.allocUnsafeSlow(1 << 16);
  pos = 0;
  rows = 0;

  reset(): void {
    this.pos = 0;
    this.rows = 0;
  }

  /** The bytes written, copied into an ArrayBuffer of their own (transferable). */
  take(): Uint8Array {
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.pos).slice();
  }

  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafeSlow(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(c: number): void {
    this.room(1);
    this.buf[this.pos++] = c;
  }

  tab(): void {
    this.byte(9);
  }

  end(): void {
    this.byte(10);
    this.rows++;
  }

  null(): void {
    this.room(2);
    this.buf.writeUInt16BE(NULL_FIELD, this.pos);
    this.pos += 2;
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** ASCII known not to need escaping (numbers in JS notation, true/false). */
  ascii(v: string): void {
    this.room(v.length);
    this.pos += this.buf.write(v, this.pos, 'latin1');
  }

  utf8(v: string): void {
    this.room(v.length * 3);
    this.pos += this.buf.write(v, this.pos, 'utf8');
  }

  /** A top-level string field (escaped); null/undefined is the empty string. */
  str(v: string | null | undefined): void {
    if (v == null) return;
    this.utf8(escapeTsv(v));
  }

  bool(v: boolean): void {
    this.bytes(v ? TRUE : FALSE);
  }

  /** 0 <= n < 2^32, an integer; left-padded with zeros to `width`. */
  private digits(n: number, width = 0): void {
    let len = n < 1e5 ? (n < 100 ? (n < 10 ? 1 : 2) : n < 1e3 ? 3 : n < 1e4 ? 4 : 5)
      : n < 1e7 ? (n < 1e6 ? 6 : 7) : n < 1e8 ? 8 : n < 1e9 ? 9 : 10; // prettier-ignore
    if (width > len) len = width;
    this.room(len);
    const b = this.buf;
    let p = this.pos + len;
    this.pos = p;
    while (n >= 100) {
      const q = (n / 100) >>> 0;
      const r = (n - q * 100) * 2;
      b[--p] = PAIRS[r + 1];
      b[--p] = PAIRS[r];
      n = q;
    }
    if (n >= 10) {
      b[--p] = PAIRS[n * 2 + 1];
      b[--p] = PAIRS[n * 2];
    } else b[--p] = 48 + n;
    while (p > this.pos - len) b[--p] = 48;
  }

  /** Unsigned integer column; non-integers are rounded. The first test is the fast path. */
  uint(x: number, field: string): void {
    if (!(x >= 0 && x === Math.floor(x) && x !== Infinity)) {
      if (typeof x !== 'number' || !Number.isFinite(x) || x < 0)
        throw new EncodeError(`${field} must be a non-negative number, got ${String(x)}`);
      x = Math.round(x);
    }
    if (x < 4294967296) return this.digits(x);
    if (x > MAX_SAFE) return this.ascii('' + x);
    let hi = Math.floor(x / 1e9);
    let lo = x - hi * 1e9;
    if (lo < 0) {
      hi -= 1;
      lo += 1e9;
    }
    this.digits(hi);
    this.digits(lo, 9);
  }

  nuint(x: number | null | undefined, field: string): void {
    if (x == null) this.null();
    else this.uint(x, field);
  }

  float(x: number, field: string): void {
    if (typeof x !== 'number' || x - x !== 0)
      throw new EncodeError(`${field} must be a finite number, got ${String(x)}`);
    if (x >= 0 && x < 4294967296 && x === Math.floor(x)) this.digits(x);
    else this.ascii('' + x);
  }

  /** Epoch ms -> `seconds.mmm` (see formatTs). */
  ts(ms: number, field = 'ts'): void {
    if (!Number.isSafeInteger(ms) || ms < 0)
      throw new EncodeError(`${field} must be epoch milliseconds, got ${ms}`);
    const s = Math.floor(ms / 1000);
    this.uint(s, field);
    this.byte(46);
    this.digits(ms - s * 1000, 3);
  }

  nts(ms: number | null | undefined, field: string): void {
    if (ms == null) this.null();
    else this.ts(ms, field);
  }

  arrUint(xs: readonly (number | null | undefined)[], field: string, nullable = false): void {
    this.byte(91);
    for (let i = 0; i < xs.length; i++) {
      if (i > 0) this.byte(44);
      const x = xs[i];
      if (x == null && nullable) this.ascii('NULL');
      else this.uint(x as number, field);
    }
    this.byte(93);
  }

  /** A Map(String, String) literal, keys sorted (see metric). */
  map(m: Readonly<Record<string, string>>, field: string): void {
    if (typeof m !== 'object' || m === null) throw new EncodeError(`${field} must be an object`);
    const keys = Object.keys(m).sort();
    this.byte(123);
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) this.byte(44);
      this.utf8(quoteString(keys[i]));
      this.byte(58);
      this.utf8(quoteString(m[keys[i]]));
    }
    this.byte(125);
  }

  arrStr(xs: readonly string[]): void {
    this.byte(91);
    for (let i = 0; i < xs.length; i++) {
      if (i > 0) this.byte(44);
      this.utf8(quoteString(xs[i]));
    }
    this.byte(93);
  }
}

/** Org and cluster ids (and the agent name) as escaped bytes, written at the start of every row. */
interface TPrefix {
  oc: Uint8Array;
  agent: Uint8Array;
}

/**
 * How a column's value is written and read back: `string`, `uint`, `float`, `bool`, `ts` (epoch ms
 * <-> DateTime64(3)), their `n…` Nullable forms, and `raw` (arrays, maps: written, never read back).
 */
export type TColumnKind = 'string' | 'uint' | 'nuint' | 'float' | 'nfloat' | 'bool' | 'ts' | 'nts' | 'raw';

/**
 * One column of a raw table: its name, kind and where a sample (row) keeps it: `key` (the sample field
 * of that name, `def` when absent) or, for arrays and computed values, its own `write`.
 */
export interface TColumn<S> {
  name: string;
  kind: TColumnKind;
  key?: string;
  def?: unknown;
  /** Error messages name this field (default: name). */
  field?: string;
  write?(w: Tsv, x: S, pre: TPrefix): void;
}

type TKeyed = <S>(name: keyof S & string, def?: unknown) => TColumn<S>;
const keyed =
  (kind: TColumnKind): TKeyed =>
  (name, def) => ({ name, kind, key: name, def, field: name });
const string = keyed('string');
const uint = keyed('uint');
const nuint = keyed('nuint');
const float = keyed('float');
const bool = keyed('bool');
const nts = keyed('nts');
const ts = <S>(): TColumn<S> => ({ name: 'ts', kind: 'ts', key: 'ts', field: 'ts' });
const raw = <S>(name: string, write: (w: Tsv, x: S) => void): TColumn<S> => ({ name, kind: 'raw', write });
type TGet<S, V> = (x: S) => V;
type TOpt<T> = T | null | undefined;
/** A Nullable column that is NULL when its group (psi) is absent, else required. */
const group = <S, G>(of: TGet<S, TOpt<G>>, col: TColumn<G>, kind: TColumnKind): TColumn<S> => ({
  name: col.name, kind, write: (w, x, pre) => { const g = of(x); if (g == null) w.null(); else writeCell(w, pre, col, g); },
}); // prettier-ignore

type TNode = TNodeStatusSample;
const NODE_STATUS: TColumn<TNode>[] = [
  uint('node_id'),
  ts(),
  string('address'),
  string('sql_address'),
  string('locality'),
  string('build'),
  nts('started_at'),
  nts('updated_at'),
  string('liveness'),
  bool('is_live'),
  bool('is_available'),
  bool('is_draining'),
  string('membership'),
  nuint('replicas'),
  nuint('replicas_leaders'),
  nuint('replicas_leaseholders'),
  nuint('ranges'),
  nuint('ranges_unavailable'),
  nuint('ranges_underreplicated'),
  nuint('live_bytes'),
  nuint('key_bytes'),
  nuint('value_bytes'),
  nuint('intent_bytes'),
  nuint('system_bytes'),
  nuint('capacity'),
  nuint('capacity_available'),
  nuint('capacity_used'),
  float('uptime_s', 0),
];

type TCg = TCgroupUsageSample;
type TIo = NonNullable<TCg['io']>[number];
const io = (k: Exclude<keyof TIo, 'device'>, nullable: boolean) =>
  raw<TCg>(`io_${k}`, (w, x) =>
    w.arrUint(
      (x.io ?? []).map((d) => d[k] ?? null),
      `io.${k}`,
      nullable,
    ),
  );
type TPsi = NonNullable<TCg['psi']>;
const psi = (k: keyof TPsi, kind: 'float' | 'uint') =>
  group<TCg, TPsi>(
    (x) => x.psi,
    { name: `psi_${k}`, kind, key: k, field: `psi.${k}` },
    kind === 'float' ? 'nfloat' : 'nuint',
  );
const CGROUP_USAGE: TColumn<TCg>[] = [
  string('host'),
  uint('node_id', 0),
  string('cgroup'),
  ts(),
  uint('version'),
  uint('cpu_usage_usec'),
  uint('cpu_nr_periods', 0),
  uint('cpu_nr_throttled', 0),
  uint('cpu_throttled_usec', 0),
  nuint('cpu_quota_usec'),
  uint('cpu_period_usec', 100000),
  nuint('cpu_weight'),
  nuint('cpu_shares'),
  uint('mem_current'),
  nuint('mem_max'),
  uint('mem_swap_current', 0),
  nuint('mem_swap_max'),
  uint('mem_anon', 0),
  uint('mem_file', 0),
  raw('io_device', (w, x) => w.arrStr((x.io ?? []).map((d) => d.device))),
  io('rbytes', false),
  io('wbytes', false),
  io('rios', false),
  io('wios', false),
  io('rbps_max', true),
  io('wbps_max', true),
  io('riops_max', true),
  io('wiops_max', true),
  psi('cpu_some_avg10', 'float'),
  psi('cpu_some_total', 'uint'),
  psi('memory_some_avg10', 'float'),
  psi('memory_full_avg10', 'float'),
  psi('memory_full_total', 'uint'),
  psi('io_some_avg10', 'float'),
  psi('io_full_avg10', 'float'),
  psi('io_full_total', 'uint'),
];

type THost = THostMetricsSample;
type TDisk = NonNullable<THost['disks']>[number];
const disk = (k: Exclude<keyof TDisk, 'path'>) =>
  raw<THost>(`disk_${k}`, (w, x) =>
    w.arrUint(
      (x.disks ?? []).map((d) => d[k]),
      `disks.${k}`,
    ),
  );
const HOST_METRICS: TColumn<THost>[] = [
  string('host'),
  uint('node_id', 0),
  ts(),
  uint('cpus'),
  float('load1'),
  float('load5'),
  float('load15'),
  uint('mem_total'),
  uint('mem_available'),
  raw('disk_path', (w, x) => w.arrStr((x.disks ?? []).map((d) => d.path))),
  disk('total'),
  disk('used'),
  disk('avail'),
];

type THb = THeartbeatSample;
const HEARTBEATS: TColumn<THb>[] = [
  { name: 'agent', kind: 'string', write: (w, _x, pre) => w.bytes(pre.agent) },
  string('host'),
  ts(),
  string('version'),
  float('uptime_s'),
  raw('capabilities', (w, x) => w.arrStr(x.capabilities ?? [])),
  uint('outbox_bytes', 0),
  uint('outbox_pending', 0),
  uint('outbox_evictions', 0),
  uint('metrics_dropped', 0),
];

/** One bench_samples row: a sample's interval line with one of its metrics. */
interface TBenchRow {
  run_id: string;
  ts: number;
  elapsed_s: number;
  metric: string;
  value: number;
}
const BENCH_SAMPLES: TColumn<TBenchRow>[] = [
  string('run_id'),
  ts(),
  float('elapsed_s'),
  string('metric'),
  { name: 'value', kind: 'float', write: (w, r) => w.float(r.value, `values.${r.metric}`) },
];

/**
 * Labels are written sorted by name: a Map compares in its written order, so one order per label set
 * keeps a series one key (ORDER BY, rollups, dedup).
 */
const METRICS: TColumn<TMetricSample>[] = [
  string('name'),
  uint('node_id', 0),
  string('host'),
  raw('labels', (w, x) => w.map(x.labels ?? {}, 'labels')),
  ts(),
  string('type', 'untyped'),
  float('value'),
];

/** Every raw table's columns after the leading org_id, cluster_id (written from the batch's prefix). */
export const TABLE_COLUMNS = {
  node_status: NODE_STATUS,
  cgroup_usage: CGROUP_USAGE,
  host_metrics: HOST_METRICS,
  heartbeats: HEARTBEATS,
  bench_samples: BENCH_SAMPLES,
  metrics: METRICS,
} as const satisfies Record<TIngestTable, readonly TColumn<never>[]>;

/** The column list of each insert, in the order the encoder writes them. */
export const INGEST_COLUMNS = Object.fromEntries(
  INGEST_TABLES.map((t) => [t, ['org_id', 'cluster_id', ...TABLE_COLUMNS[t].map((c) => c.name)]]),
) as unknown as Record<TIngestTable, readonly string[]>;

/** Kind of every column of a table by name (org_id and cluster_id are strings). */
export const columnKinds = (table: TIngestTable): Map<string, TColumnKind> =>
  new Map([
    ['org_id', 'string'],
    ['cluster_id', 'string'],
    ...TABLE_COLUMNS[table].map((c) => [c.name, c.kind] as const),
  ]);

/** Writes one cell: the column's own writer, or the sample field `key` by kind. */
function writeCell<S>(w: Tsv, pre: TPrefix, c: TColumn<S>, x: S): void {
  if (c.write !== undefined) return c.write(w, x, pre);
  let v = (x as Record<string, unknown>)[c.key as string];
  if (v == null && c.def !== undefined) v = c.def;
  const f = c.field as string;
  switch (c.kind) {
    case 'uint': return w.uint(v as number, f);
    case 'nuint': return w.nuint(v as TOpt<number>, f);
    case 'string': return w.str(v as TOpt<string>);
    case 'ts': return w.ts(v as number, f);
    case 'float': return w.float(v as number, f);
    case 'bool': return w.bool(v as boolean);
    case 'nts': return w.nts(v as TOpt<number>, f);
    default: throw new EncodeError(`${f}: column kind ${c.kind} needs a writer`);
  }
} // prettier-ignore

function writeRow<S>(w: Tsv, pre: TPrefix, cols: readonly TColumn<S>[], x: S): void {
  w.bytes(pre.oc);
  for (let i = 0; i < cols.length; i++) {
    if (i > 0) w.tab();
    writeCell(w, pre, cols[i], x);
  }
  w.end();
}

const WRITE = {
  node_status: (w, pre, x) => writeRow(w, pre, NODE_STATUS, x),
  cgroup_usage: (w, pre, x) => writeRow(w, pre, CGROUP_USAGE, x),
  host_metrics: (w, pre, x) => writeRow(w, pre, HOST_METRICS, x),
  heartbeat: (w, pre, x) => writeRow(w, pre, HEARTBEATS, x),
  // One row per metric.
  bench_sample: (w, pre, s) => {
    for (const [metric, value] of Object.entries(s.values ?? {}))
      writeRow(w, pre, BENCH_SAMPLES, { run_id: s.run_id, ts: s.ts, elapsed_s: s.elapsed_s, metric, value });
  },
  metric: (w, pre, x) => writeRow(w, pre, METRICS, x),
} satisfies { [K in TSample['kind']]: (w: Tsv, pre: TPrefix, x: Extract<TSample, { kind: K }>) => void };
const TABLE_OF = {
  node_status: 'node_status',
  cgroup_usage: 'cgroup_usage',
  host_metrics: 'host_metrics',
  heartbeat: 'heartbeats',
  bench_sample: 'bench_samples',
  metric: 'metrics',
} as const satisfies Record<TSample['kind'], TIngestTable>;

/** Scratch writers, one per table (encoding is synchronous, so one set per thread suffices). */
const scratch = Object.fromEntries(INGEST_TABLES.map((t) => [t, new Tsv()])) as Record<TIngestTable, Tsv>;
const utf8 = new TextEncoder();

/**
 * Encodes one batch into the tables' scratch writers. Throws EncodeError naming the sample index and
 * field for bad values, so a bad batch fails alone instead of poisoning a coalesced insert.
 */
function encodeInto(
  orgId: string,
  clusterId: string | null,
  samples: readonly TSample[],
  meta: { agent?: string },
): Record<TIngestTable, Tsv> {
  const pre: TPrefix = {
    oc: utf8.encode(`${escapeTsv(orgId)}\t${escapeTsv(clusterId ?? '')}\t`),
    agent: utf8.encode(escapeTsv(meta.agent ?? '')),
  };
  for (const t of INGEST_TABLES) scratch[t].reset();
  for (let i = 0; i < samples.length; i++) {
    const x = samples[i];
    const kind = (x as { kind?: unknown })?.kind;
    const table = Object.hasOwn(TABLE_OF, kind as string) ? TABLE_OF[x.kind] : undefined;
    try {
      if (!table) throw new EncodeError(`unknown kind ${JSON.stringify(kind)}`);
      (WRITE[x.kind] as (w: Tsv, pre: TPrefix, x: TSample) => void)(scratch[table], pre, x);
    } catch (err) {
      for (const t of INGEST_TABLES) scratch[t].reset();
      throw new EncodeError(`samples[${i}] (${String(kind)}): ${(err as Error).message}`);
    }
  }
  return scratch;
}

/** TabSeparated bodies as UTF-8 bytes: transferable between threads, inserted zero-copy by chDB. */
export interface TEncodedBytes {
  bodies: Partial<Record<TIngestTable, Uint8Array>>;
  /** Rows over all tables. */
  rows: number;
  /** Newest sample time (epoch ms): how late the batch is (the writer does not hold a late batch back). */
  newest?: number;
}

/** One batch as TabSeparated bytes per table, each body in an ArrayBuffer of its own. */
export function encodeSamplesToBytes(
  orgId: string,
  clusterId: string | null,
  samples: readonly TSample[],
  meta: { agent?: string } = {},
): TEncodedBytes {
  const w = encodeInto(orgId, clusterId, samples, meta);
  let newest = -Infinity;
  for (const s of samples) if (s.ts > newest) newest = s.ts;
  const out: TEncodedBytes = { bodies: {}, rows: 0, newest };
  for (const t of INGEST_TABLES) {
    if (w[t].rows === 0) continue;
    out.bodies[t] = w[t].take();
    out.rows += w[t].rows;
  }
  return out;
}
