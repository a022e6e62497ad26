import type { TSample } from '@clusterscope/schema';
import { insertTsvWith, toClient, type TClickHouse, type TTsdb } from './client';
import {
  encodeSamplesToBytes,
  escapeTsv,
  formatTs,
  INGEST_COLUMNS,
  INGEST_TABLES,
  TABLE_COLUMNS,
  type TEncodedBytes,
  type TIngestTable,
} from './encode';

export interface TWriteResult {
  accepted: number;
  duplicate: boolean;
}

export interface TWriterOptions {
  /** Longest time a write waits for others to coalesce with (ms). Default 20. */
  maxDelayMs?: number;
  /**
   * Least time between the starts of two rounds (ms) under a steady stream of writes from many clients
   * (the round before carried at least `busyBatches` batches): each round makes a part per table and
   * per materialized view, which ClickHouse merges afterwards, so fewer, larger inserts cost less (its
   * guidance: about one insert per second). Only fresh data waits: a batch whose newest sample is older
   * than twice this (an agent catching up from its outbox, a retry) starts the round at once, so a
   * client sending one batch at a time is not held to one batch per round while it catches up. One
   * client writing batch after batch, or a few at once, is not held back either; nor is a write after a
   * quiet spell (it waits `maxDelayMs`). Default 0 (off).
   */
  minRoundMs?: number;
  /** How many batches a round must carry for the next one to wait for `minRoundMs`. Default 8. */
  busyBatches?: number;
  /** Flush at once when this many rows are pending. Default 50 000. */
  maxRows?: number;
  /** How many recently accepted batch ids are remembered in memory. Default 100 000. */
  recentBatches?: number;
}

export interface TWriter {
  /**
   * Queues a batch; resolves after ClickHouse confirmed its rows. A batch id already accepted
   * (in flight, in memory, or in `ingest_batches`) resolves `{ duplicate: true }` without inserting.
   * Rejects when its rows cannot be inserted (every caller of the flush when ClickHouse is down; only
   * this one when ClickHouse rejects this batch's rows).
   */
  write(
    orgId: string,
    clusterId: string | null,
    batchId: string,
    samples: readonly TSample[],
    meta?: { agent?: string },
  ): Promise<TWriteResult>;
  /**
   * Like write, for a batch encoded elsewhere (an ingest worker): `encode` runs only when the batch id
   * is new, and its EncodeError rejects this write alone.
   */
  writeEncoded(
    orgId: string,
    batchId: string,
    accepted: number,
    encode: () => TEncodedBytes | Promise<TEncodedBytes>,
  ): Promise<TWriteResult>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

interface TPending {
  key: string;
  orgId: string;
  batchId: string;
  accepted: number;
  encoded: TEncodedBytes;
  resolve(r: TWriteResult): void;
  reject(err: Error): void;
}

/**
 * One body of the parts, a view when there is one part: a run output's samples are tens of MB of rows,
 * and copying them stalls the event loop for as long as their pages take to fault in.
 */
const joinParts = (parts: readonly Uint8Array[]): Buffer =>
  parts.length === 1
    ? Buffer.from(parts[0].buffer, parts[0].byteOffset, parts[0].byteLength)
    : Buffer.concat(parts);

const keyOf = (orgId: string, batchId: string) => `${orgId}\u0000${batchId}`;

/**
 * The natural key of a row per table: the columns (after org_id) that identify one sample. A batch
 * being re-derived after a crash skips each row whose key is already stored (see restoreRows).
 */
const ROW_KEYS: Record<TIngestTable, readonly string[]> = {
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

/**
 * The ingest hot path. Rows of concurrent writes are coalesced into one TabSeparated insert per table.
 *
 * Exactly once through a crash: a batch id is recorded in `ingest_batches` *before* its rows are
 * inserted, so a ledger entry means "this batch may have rows stored", never less. A batch found in
 * the ledger is not assumed complete: its rows are re-derived table by table (restoreRows), and only
 * the rows whose natural key is not stored yet are inserted. So a process that dies after inserting
 * one table (or a flush that fails on its second table) leaves a batch that the agent's retry
 * completes, without inserting the first table's rows again. Coalescing is unchanged (the retried
 * batch may meet different batches; it is then handled on its own).
 * A batch that ClickHouse itself rejects is isolated (see insertRows): only its caller gets the error.
 */
export function createWriter(ch: TClickHouse | TTsdb, opts: TWriterOptions = {}): TWriter {
  const client = toClient(ch);
  const raw = 'insertTsv' in ch ? ch.insertTsv : null;
  const maxDelayMs = opts.maxDelayMs ?? 20;
  const maxRows = opts.maxRows ?? 50_000;
  const minRoundMs = opts.minRoundMs ?? 0;
  const busyBatches = opts.busyBatches ?? 8;
  const recentCap = opts.recentBatches ?? 100_000;

  let pending: TPending[] = [];
  let pendingRows = 0;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  /** Start of the last busy round, whether a late batch waits, and the pause before the next round. */
  let lastRound = 0;
  let lateWaiting = false;
  let wake: (() => void) | null = null;
  let flushing = 0;
  const wakeUp = () => wake?.();
  let closed = false;
  const inflight = new Map<string, Promise<TWriteResult>>();
  const recent = new Map<string, number>();

  const remember = (key: string, accepted: number) => {
    recent.delete(key);
    recent.set(key, accepted);
    if (recent.size > recentCap) recent.delete(recent.keys().next().value as string);
  };

  const clearTimer = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };

  /** Drains pending in rounds; writes arriving during a round coalesce into the next one. */
  const drain = (): Promise<void> => {
    clearTimer();
    if (running) return running;
    running = (async () => {
      try {
        while (pending.length > 0) {
          const wait = lastRound + minRoundMs - Date.now();
          if (wait > 0 && !closed && flushing === 0 && !lateWaiting && pendingRows < maxRows) {
            await new Promise<void>((r) => {
              const pause = setTimeout(r, wait);
              wake = () => {
                clearTimeout(pause);
                r();
              };
            });
            wake = null;
            continue; // re-check: woken early by maxRows, a late batch, flush or close
          }
          lastRound = pending.length >= busyBatches ? Date.now() : 0;
          lateWaiting = false;
          const round = pending;
          pending = [];
          pendingRows = 0;
          await flushRound(round);
        }
      } finally {
        running = null;
      }
    })();
    return running;
  };

  async function findRecorded(round: TPending[]): Promise<Map<string, number>> {
    const orgs = [...new Set(round.map((p) => p.orgId))];
    const ids = [...new Set(round.map((p) => p.batchId))];
    const rs = await client.query({
      query: `SELECT org_id, batch_id, max(rows) AS rows FROM ingest_batches
              WHERE org_id IN {orgs:Array(String)} AND batch_id IN {ids:Array(String)}
              GROUP BY org_id, batch_id`,
      query_params: { orgs, ids },
      format: 'JSONEachRow',
    });
    const rows = await rs.json<{ org_id: string; batch_id: string; rows: number | string }>();
    return new Map(rows.map((r) => [keyOf(r.org_id, r.batch_id), Number(r.rows)]));
  }

  async function insertTsv(table: string, columns: readonly string[], body: Buffer): Promise<void> {
    try {
      await (raw ? raw(table, columns, body) : insertTsvWith(client, table, columns, body));
    } catch (err) {
      throw new Error(`ClickHouse insert into ${table} failed: ${(err as Error).message}`);
    }
  }

  /**
   * Inserts the batches' rows, table by table (from table index `from`). When a coalesced insert
   * fails, that table and the rest are retried one batch at a time, so a batch ClickHouse rejects
   * fails alone instead of every batch it was coalesced with. Returns the batches that failed.
   */
  async function insertRows(batches: TPending[], from = 0): Promise<Map<TPending, Error>> {
    for (let i = from; i < INGEST_TABLES.length; i++) {
      const table = INGEST_TABLES[i];
      const parts = batches.flatMap((p) => p.encoded.bodies[table] ?? []);
      if (parts.length === 0) continue;
      try {
        await insertTsv(table, INGEST_COLUMNS[table], joinParts(parts));
      } catch (err) {
        const e = err instanceof Error ? err : new Error(String(err));
        if (batches.length === 1) return new Map([[batches[0], e]]);
        const failed = new Map<TPending, Error>();
        for (const p of batches) for (const [q, qe] of await insertRows([p], i)) failed.set(q, qe);
        return failed;
      }
    }
    return new Map();
  }

  async function insertLedger(batches: TPending[]): Promise<void> {
    const now = Date.now();
    const ledger = batches
      .map((p) => `${escapeTsv(p.orgId)}\t${escapeTsv(p.batchId)}\t${p.accepted}\t${formatTs(now)}\n`)
      .join('');
    await insertTsv('ingest_batches', ['org_id', 'batch_id', 'rows', 'ts'], Buffer.from(ledger));
  }

  /**
   * Completes a batch found in the ledger: per table, inserts only the rows whose natural key
   * (ROW_KEYS) is not stored yet for that org, counting repeats (a multiset). Returns the rows added.
   */
  async function restoreRows(p: TPending): Promise<number> {
    let added = 0;
    for (const table of INGEST_TABLES) {
      const body = p.encoded.bodies[table];
      if (!body || body.length === 0) continue;
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
      const select = keyCols
        .map((c) => (c === 'ts' ? 'toUnixTimestamp64Milli(ts)' : NUMERIC_KEYS.has(c) ? c : `toString(${c})`))
        .join(', ');
      const rs = await client.query({
        query: `SELECT ${select} FROM ${table}
                WHERE org_id = {org:String}
                  AND ts BETWEEN fromUnixTimestamp64Milli({from:Int64}, 'UTC')
                             AND fromUnixTimestamp64Milli({to:Int64}, 'UTC')`,
        query_params: { org: p.orgId, from, to },
        format: 'JSONCompactEachRow',
      });
      const stored = new Map<string, number>();
      for (const row of await rs.json<unknown[]>()) {
        const k = JSON.stringify(
          row.map((v, i) => (keyCols[i] === 'ts' || NUMERIC_KEYS.has(keyCols[i]) ? Number(v) : v)),
        );
        stored.set(k, (stored.get(k) ?? 0) + 1);
      }
      const missing: string[] = [];
      lines.forEach((line, i) => {
        const n = stored.get(keys[i]) ?? 0;
        if (n > 0) stored.set(keys[i], n - 1);
        else missing.push(`${line}\n`);
      });
      if (missing.length === 0) continue;
      await insertTsv(table, columns, Buffer.from(missing.join('')));
      added += missing.length;
    }
    return added;
  }

  async function flushRound(round: TPending[]): Promise<void> {
    let todo = round;
    const seen: [TPending, number][] = [];
    try {
      const recorded = await findRecorded(round);
      todo = [];
      for (const p of round) {
        const n = recorded.get(p.key);
        if (n === undefined) todo.push(p);
        else seen.push([p, n]);
      }
      if (todo.length > 0) {
        // Ledger first: from here on a retry of these batches re-derives instead of re-inserting.
        await insertLedger(todo);
        const failed = await insertRows(todo);
        for (const [p, e] of failed) p.reject(e);
        todo = todo.filter((p) => !failed.has(p));
      }
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      for (const p of todo) p.reject(e);
      for (const [p] of seen) p.reject(e);
      return;
    }
    for (const p of todo) {
      remember(p.key, p.accepted);
      p.resolve({ accepted: p.accepted, duplicate: false });
    }
    for (const [p, n] of seen) {
      try {
        const added = await restoreRows(p);
        remember(p.key, n);
        p.resolve({ accepted: n, duplicate: added === 0 });
      } catch (err) {
        p.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }

  const writeEncoded: TWriter['writeEncoded'] = async (orgId, batchId, accepted, encode) => {
    if (closed) throw new Error('ClickHouse writer is closed');
    if (typeof orgId !== 'string' || orgId === '') throw new Error('orgId is required');
    if (typeof batchId !== 'string' || batchId === '') throw new Error('batchId is required');
    const key = keyOf(orgId, batchId);
    const seen = recent.get(key);
    if (seen !== undefined) return { accepted: seen, duplicate: true };
    const first = inflight.get(key);
    if (first) return { accepted: (await first).accepted, duplicate: true };

    // In flight from here on (before encoding), so a concurrent retry waits for this one.
    const promise = (async () => {
      const encoded = await encode();
      return new Promise<TWriteResult>((resolve, reject) => {
        pending.push({ key, orgId, batchId, accepted, encoded, resolve, reject });
        pendingRows += encoded.rows;
        if (pendingRows >= maxRows) {
          wakeUp();
          void drain();
        } else {
          if (minRoundMs > 0 && (encoded.newest ?? Infinity) < Date.now() - 2 * minRoundMs) {
            lateWaiting = true;
            wakeUp();
          }
          if (!timer && !running) timer = setTimeout(() => void drain(), maxDelayMs);
        }
      });
    })();
    inflight.set(key, promise);
    const forget = () => inflight.delete(key);
    promise.then(forget, forget);
    return promise;
  };

  return {
    write: (orgId, clusterId, batchId, samples, meta) =>
      writeEncoded(orgId, batchId, samples.length, () =>
        encodeSamplesToBytes(orgId, clusterId, samples, meta),
      ),
    writeEncoded,
    flush: async () => {
      flushing++;
      try {
        wakeUp();
        while (pending.length > 0 || running) await drain();
      } finally {
        flushing--;
      }
    },
    async close() {
      closed = true;
      wakeUp();
      while (pending.length > 0 || running) await drain();
    },
  };
}
