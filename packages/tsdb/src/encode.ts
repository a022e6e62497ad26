import type {
  TBenchSample,
  TCgroupUsageSample,
  THeartbeatSample,
  THostMetricsSample,
  TMetricSample,
  TNodeStatusSample,
  TSample,
} from '@clusterscope/schema';

/**
 * TabSeparated encoders for the raw tables, written byte by byte into reusable buffers (one function
 * per table, in the order of the column lists below, which are the single source of that order).
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

export const INGEST_COLUMNS: Record<TIngestTable, readonly string[]> = {
  node_status: [
    'org_id', 'cluster_id', 'node_id', 'ts', 'address', 'sql_address', 'locality', 'build', 'started_at', 'updated_at',
    'liveness', 'is_live', 'is_available', 'is_draining', 'membership',
    'replicas', 'replicas_leaders', 'replicas_leaseholders', 'ranges', 'ranges_unavailable', 'ranges_underreplicated',
    'live_bytes', 'key_bytes', 'value_bytes', 'intent_bytes', 'system_bytes', 'capacity', 'capacity_available',
    'capacity_used', 'uptime_s',
  ],
  cgroup_usage: [
    'org_id', 'cluster_id', 'host', 'node_id', 'cgroup', 'ts', 'version',
    'cpu_usage_usec', 'cpu_nr_periods', 'cpu_nr_throttled', 'cpu_throttled_usec', 'cpu_quota_usec', 'cpu_period_usec',
    'cpu_weight', 'cpu_shares', 'mem_current', 'mem_max', 'mem_swap_current', 'mem_swap_max', 'mem_anon', 'mem_file',
    'io_device', 'io_rbytes', 'io_wbytes', 'io_rios', 'io_wios', 'io_rbps_max', 'io_wbps_max', 'io_riops_max',
    'io_wiops_max', 'psi_cpu_some_avg10', 'psi_cpu_some_total', 'psi_memory_some_avg10', 'psi_memory_full_avg10',
    'psi_memory_full_total', 'psi_io_some_avg10', 'psi_io_full_avg10', 'psi_io_full_total',
  ],
  host_metrics: [
    'org_id', 'cluster_id', 'host', 'node_id', 'ts', 'cpus', 'load1', 'load5', 'load15', 'mem_total', 'mem_available',
    'disk_path', 'disk_total', 'disk_used', 'disk_avail',
  ],
  heartbeats: [
    'org_id', 'cluster_id', 'agent', 'host', 'ts', 'version', 'uptime_s', 'capabilities', 'outbox_bytes',
    'outbox_pending', 'outbox_evictions', 'metrics_dropped',
  ],
  bench_samples: ['org_id', 'cluster_id', 'run_id', 'ts', 'elapsed_s', 'metric', 'value'],
  metrics: ['org_id', 'cluster_id', 'name', 'node_id', 'host', 'labels', 'ts', 'type', 'value'],
}; // prettier-ignore

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

function nodeStatus(w: Tsv, pre: TPrefix, x: TNodeStatusSample): void {
  w.bytes(pre.oc);
  w.uint(x.node_id, 'node_id'); w.tab();
  w.ts(x.ts); w.tab();
  w.str(x.address); w.tab();
  w.str(x.sql_address); w.tab();
  w.str(x.locality); w.tab();
  w.str(x.build); w.tab();
  w.nts(x.started_at, 'started_at'); w.tab();
  w.nts(x.updated_at, 'updated_at'); w.tab();
  w.str(x.liveness); w.tab();
  w.bool(x.is_live); w.tab();
  w.bool(x.is_available); w.tab();
  w.bool(x.is_draining); w.tab();
  w.str(x.membership); w.tab();
  w.nuint(x.replicas, 'replicas'); w.tab();
  w.nuint(x.replicas_leaders, 'replicas_leaders'); w.tab();
  w.nuint(x.replicas_leaseholders, 'replicas_leaseholders'); w.tab();
  w.nuint(x.ranges, 'ranges'); w.tab();
  w.nuint(x.ranges_unavailable, 'ranges_unavailable'); w.tab();
  w.nuint(x.ranges_underreplicated, 'ranges_underreplicated'); w.tab();
  w.nuint(x.live_bytes, 'live_bytes'); w.tab();
  w.nuint(x.key_bytes, 'key_bytes'); w.tab();
  w.nuint(x.value_bytes, 'value_bytes'); w.tab();
  w.nuint(x.intent_bytes, 'intent_bytes'); w.tab();
  w.nuint(x.system_bytes, 'system_bytes'); w.tab();
  w.nuint(x.capacity, 'capacity'); w.tab();
  w.nuint(x.capacity_available, 'capacity_available'); w.tab();
  w.nuint(x.capacity_used, 'capacity_used'); w.tab();
  w.float(x.uptime_s ?? 0, 'uptime_s');
  w.end();
} // prettier-ignore

const IO_FIELDS = ['rbytes', 'wbytes', 'rios', 'wios'] as const;
const IO_LIMITS = ['rbps_max', 'wbps_max', 'riops_max', 'wiops_max'] as const;

function cgroupUsage(w: Tsv, pre: TPrefix, x: TCgroupUsageSample): void {
  const io = x.io ?? [];
  w.bytes(pre.oc);
  w.str(x.host); w.tab();
  w.uint(x.node_id ?? 0, 'node_id'); w.tab();
  w.str(x.cgroup); w.tab();
  w.ts(x.ts); w.tab();
  w.uint(x.version, 'version'); w.tab();
  w.uint(x.cpu_usage_usec, 'cpu_usage_usec'); w.tab();
  w.uint(x.cpu_nr_periods ?? 0, 'cpu_nr_periods'); w.tab();
  w.uint(x.cpu_nr_throttled ?? 0, 'cpu_nr_throttled'); w.tab();
  w.uint(x.cpu_throttled_usec ?? 0, 'cpu_throttled_usec'); w.tab();
  w.nuint(x.cpu_quota_usec, 'cpu_quota_usec'); w.tab();
  w.uint(x.cpu_period_usec ?? 100000, 'cpu_period_usec'); w.tab();
  w.nuint(x.cpu_weight, 'cpu_weight'); w.tab();
  w.nuint(x.cpu_shares, 'cpu_shares'); w.tab();
  w.uint(x.mem_current, 'mem_current'); w.tab();
  w.nuint(x.mem_max, 'mem_max'); w.tab();
  w.uint(x.mem_swap_current ?? 0, 'mem_swap_current'); w.tab();
  w.nuint(x.mem_swap_max, 'mem_swap_max'); w.tab();
  w.uint(x.mem_anon ?? 0, 'mem_anon'); w.tab();
  w.uint(x.mem_file ?? 0, 'mem_file'); w.tab();
  w.arrStr(io.map((d) => d.device)); w.tab();
  for (const k of IO_FIELDS) {
    w.arrUint(io.map((d) => d[k]), `io.${k}`); w.tab();
  }
  for (const k of IO_LIMITS) {
    w.arrUint(io.map((d) => d[k] ?? null), `io.${k}`, true); w.tab();
  }
  const p = x.psi;
  if (p) {
    w.float(p.cpu_some_avg10, 'psi.cpu_some_avg10'); w.tab();
    w.uint(p.cpu_some_total, 'psi.cpu_some_total'); w.tab();
    w.float(p.memory_some_avg10, 'psi.memory_some_avg10'); w.tab();
    w.float(p.memory_full_avg10, 'psi.memory_full_avg10'); w.tab();
    w.uint(p.memory_full_total, 'psi.memory_full_total'); w.tab();
    w.float(p.io_some_avg10, 'psi.io_some_avg10'); w.tab();
    w.float(p.io_full_avg10, 'psi.io_full_avg10'); w.tab();
    w.uint(p.io_full_total, 'psi.io_full_total');
  } else {
    for (let i = 0; i < 8; i++) {
      if (i > 0) w.tab();
      w.null();
    }
  }
  w.end();
} // prettier-ignore

function hostMetrics(w: Tsv, pre: TPrefix, x: THostMetricsSample): void {
  const d = x.disks ?? [];
  w.bytes(pre.oc);
  w.str(x.host); w.tab();
  w.uint(x.node_id ?? 0, 'node_id'); w.tab();
  w.ts(x.ts); w.tab();
  w.uint(x.cpus, 'cpus'); w.tab();
  w.float(x.load1, 'load1'); w.tab();
  w.float(x.load5, 'load5'); w.tab();
  w.float(x.load15, 'load15'); w.tab();
  w.uint(x.mem_total, 'mem_total'); w.tab();
  w.uint(x.mem_available, 'mem_available'); w.tab();
  w.arrStr(d.map((k) => k.path)); w.tab();
  w.arrUint(d.map((k) => k.total), 'disks.total'); w.tab();
  w.arrUint(d.map((k) => k.used), 'disks.used'); w.tab();
  w.arrUint(d.map((k) => k.avail), 'disks.avail');
  w.end();
} // prettier-ignore

function heartbeat(w: Tsv, pre: TPrefix, x: THeartbeatSample): void {
  w.bytes(pre.oc);
  w.bytes(pre.agent); w.tab();
  w.str(x.host); w.tab();
  w.ts(x.ts); w.tab();
  w.str(x.version); w.tab();
  w.float(x.uptime_s, 'uptime_s'); w.tab();
  w.arrStr(x.capabilities ?? []); w.tab();
  w.uint(x.outbox_bytes ?? 0, 'outbox_bytes'); w.tab();
  w.uint(x.outbox_pending ?? 0, 'outbox_pending'); w.tab();
  w.uint(x.outbox_evictions ?? 0, 'outbox_evictions'); w.tab();
  w.uint(x.metrics_dropped ?? 0, 'metrics_dropped');
  w.end();
} // prettier-ignore

/** One row per metric. */
function benchSample(w: Tsv, pre: TPrefix, x: TBenchSample): void {
  for (const [metric, value] of Object.entries(x.values ?? {})) {
    w.bytes(pre.oc);
    w.str(x.run_id); w.tab();
    w.ts(x.ts); w.tab();
    w.float(x.elapsed_s, 'elapsed_s'); w.tab();
    w.str(metric); w.tab();
    w.float(value, `values.${metric}`);
    w.end();
  }
} // prettier-ignore

/**
 * One row per Prometheus series value. Labels are written sorted by name: a Map compares in its
 * written order, so one order per label set keeps a series one key (ORDER BY, rollups, dedup).
 */
function metric(w: Tsv, pre: TPrefix, x: TMetricSample): void {
  w.bytes(pre.oc);
  w.str(x.name); w.tab();
  w.uint(x.node_id ?? 0, 'node_id'); w.tab();
  w.str(x.host); w.tab();
  w.map(x.labels ?? {}, 'labels'); w.tab();
  w.ts(x.ts); w.tab();
  w.str(x.type ?? 'untyped'); w.tab();
  w.float(x.value, 'value');
  w.end();
} // prettier-ignore

const WRITE = {
  node_status: nodeStatus,
  cgroup_usage: cgroupUsage,
  host_metrics: hostMetrics,
  heartbeat,
  bench_sample: benchSample,
  metric,
} as const;
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
}

/** One batch as TabSeparated bytes per table, each body in an ArrayBuffer of its own. */
export function encodeSamplesToBytes(
  orgId: string,
  clusterId: string | null,
  samples: readonly TSample[],
  meta: { agent?: string } = {},
): TEncodedBytes {
  const w = encodeInto(orgId, clusterId, samples, meta);
  const out: TEncodedBytes = { bodies: {}, rows: 0 };
  for (const t of INGEST_TABLES) {
    if (w[t].rows === 0) continue;
    out.bodies[t] = w[t].take();
    out.rows += w[t].rows;
  }
  return out;
}
