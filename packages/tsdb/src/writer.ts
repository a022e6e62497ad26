import type { TSample } from '@clusterscope/schema';
import { insertTsvWith, toClient, type TClickHouse, type TTsdb } from './client';
import { encodeSamplesToBytes, type TEncodedBytes } from './encode';
import { createBatcher } from './write/batcher';
import { insertBatches, namedInsert } from './write/insert';
import { batchKey, clickHouseLedger, createLedger } from './write/ledger';
import { restoreRows } from './write/restore';

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

const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

/**
 * The ingest hot path. Rows of concurrent writes are coalesced into one TabSeparated insert per table
 * (write/batcher.ts, write/insert.ts).
 *
 * Exactly once through a crash: a batch id is recorded in `ingest_batches` *before* its rows are
 * inserted, so a ledger entry means "this batch may have rows stored", never less (write/ledger.ts). A
 * batch found in the ledger is not assumed complete: its rows are re-derived table by table, and only
 * the rows whose natural key is not stored yet are inserted (write/restore.ts). So a process that dies
 * after inserting one table (or a flush that fails on its second table) leaves a batch that the agent's
 * retry completes, without inserting the first table's rows again. Coalescing is unchanged (the retried
 * batch may meet different batches; it is then handled on its own).
 * A batch that ClickHouse itself rejects is isolated (see insertBatches): only its caller gets the error.
 */
export function createWriter(ch: TClickHouse | TTsdb, opts: TWriterOptions = {}): TWriter {
  const client = toClient(ch);
  const raw = 'insertTsv' in ch ? ch.insertTsv : null;
  const insert = namedInsert(raw ?? ((...a) => insertTsvWith(client, ...a)));
  const ledger = createLedger<TWriteResult>(clickHouseLedger(client, insert), {
    recentCap: opts.recentBatches ?? 100_000,
  });
  const batcher = createBatcher<TPending>({
    maxDelayMs: opts.maxDelayMs ?? 20,
    maxRows: opts.maxRows ?? 50_000,
    minRoundMs: opts.minRoundMs ?? 0,
    busyBatches: opts.busyBatches ?? 8,
    flushRound,
  });

  async function flushRound(round: TPending[]): Promise<void> {
    let todo = round;
    let seen: [TPending, number][] = [];
    try {
      const split = await ledger.split(round);
      todo = split.fresh;
      seen = split.found;
      if (todo.length > 0) {
        // Ledger first: from here on a retry of these batches re-derives instead of re-inserting.
        await ledger.record(todo);
        const failed = await insertBatches(insert, todo);
        for (const [p, e] of failed) p.reject(e);
        todo = todo.filter((p) => !failed.has(p));
      }
    } catch (err) {
      const e = asError(err);
      for (const p of todo) p.reject(e);
      for (const [p] of seen) p.reject(e);
      return;
    }
    for (const p of todo) {
      ledger.remember(p.key, p.accepted);
      p.resolve({ accepted: p.accepted, duplicate: false });
    }
    for (const [p, n] of seen) {
      try {
        const added = await restoreRows(client, insert, p.orgId, p.encoded);
        ledger.remember(p.key, n);
        p.resolve({ accepted: n, duplicate: added === 0 });
      } catch (err) {
        p.reject(asError(err));
      }
    }
  }

  const writeEncoded: TWriter['writeEncoded'] = async (orgId, batchId, accepted, encode) => {
    if (batcher.closed) throw new Error('ClickHouse writer is closed');
    if (typeof orgId !== 'string' || orgId === '') throw new Error('orgId is required');
    if (typeof batchId !== 'string' || batchId === '') throw new Error('batchId is required');
    const key = batchKey(orgId, batchId);
    const recent = ledger.recent(key);
    if (recent !== undefined) return { accepted: recent, duplicate: true };
    const first = ledger.inflight(key);
    if (first) return { accepted: (await first).accepted, duplicate: true };

    // In flight from here on (before encoding), so a concurrent retry waits for this one.
    const promise = (async () => {
      const encoded = await encode();
      return new Promise<TWriteResult>((resolve, reject) => {
        batcher.add({ key, orgId, batchId, accepted, encoded, resolve, reject }, encoded);
      });
    })();
    ledger.track(key, promise);
    return promise;
  };

  return {
    write: (orgId, clusterId, batchId, samples, meta) =>
      writeEncoded(orgId, batchId, samples.length, () =>
        encodeSamplesToBytes(orgId, clusterId, samples, meta),
      ),
    writeEncoded,
    flush: () => batcher.flush(),
    close: () => batcher.close(),
  };
}
