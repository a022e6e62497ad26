import type { TChClient } from '../client';
import { escapeTsv, formatTs } from '../encode';
import type { TInsertTsv } from './insert';

/** One batch as the ledger sees it: who sent it, its id, and how many samples it was accepted with. */
export interface TBatchEntry {
  orgId: string;
  batchId: string;
  accepted: number;
}

/** The stored ledger (`ingest_batches`). */
export interface TLedgerStore {
  /** The accepted count recorded per batch key (batchKey) among these batches. */
  find(batches: readonly TBatchEntry[]): Promise<Map<string, number>>;
  /** Records these batches as accepted at `at` (epoch ms). */
  record(batches: readonly TBatchEntry[], at: number): Promise<void>;
}

export const batchKey = (orgId: string, batchId: string) => `${orgId}\u0000${batchId}`;

export interface TLedger<R> {
  /** The accepted count of a batch this process stored lately, if it remembers one. */
  recent(key: string): number | undefined;
  /** The write of this batch under way in this process, if any. */
  inflight(key: string): Promise<R> | undefined;
  /** Marks a write under way until it settles. */
  track(key: string, write: Promise<R>): void;
  /** Remembers a stored batch; the oldest is forgotten past the cap. */
  remember(key: string, accepted: number): void;
  /** Splits batches into those not in the stored ledger and those found there (with their recorded count). */
  split<T extends TBatchEntry>(batches: readonly T[]): Promise<{ fresh: T[]; found: [T, number][] }>;
  /** Records batches in the stored ledger before their rows are inserted. */
  record(batches: readonly TBatchEntry[]): Promise<void>;
}

/**
 * Exactly once: a batch id is answered from memory (stored lately, or being written), else from the stored
 * ledger. An entry there means "this batch may have rows stored", never less, so it is written before the
 * batch's rows and a batch found there is completed, not skipped.
 */
export function createLedger<R>(store: TLedgerStore, opts: { recentCap: number }): TLedger<R> {
  const recent = new Map<string, number>();
  const inflight = new Map<string, Promise<R>>();
  return {
    recent: (key) => recent.get(key),
    inflight: (key) => inflight.get(key),
    track(key, write) {
      inflight.set(key, write);
      const forget = () => inflight.delete(key);
      write.then(forget, forget);
    },
    remember(key, accepted) {
      recent.delete(key);
      recent.set(key, accepted);
      if (recent.size > opts.recentCap) recent.delete(recent.keys().next().value as string);
    },
    async split(batches) {
      const recorded = await store.find(batches);
      const fresh: (typeof batches)[number][] = [];
      const found: [(typeof batches)[number], number][] = [];
      for (const b of batches) {
        const n = recorded.get(batchKey(b.orgId, b.batchId));
        if (n === undefined) fresh.push(b);
        else found.push([b, n]);
      }
      return { fresh, found };
    },
    record: (batches) => store.record(batches, Date.now()),
  };
}

/** The ledger in ClickHouse's `ingest_batches` table. */
export function clickHouseLedger(client: TChClient, insert: TInsertTsv): TLedgerStore {
  return {
    async find(batches) {
      const orgs = [...new Set(batches.map((p) => p.orgId))];
      const ids = [...new Set(batches.map((p) => p.batchId))];
      const rs = await client.query({
        query: `SELECT org_id, batch_id, max(rows) AS rows FROM ingest_batches
                WHERE org_id IN {orgs:Array(String)} AND batch_id IN {ids:Array(String)}
                GROUP BY org_id, batch_id`,
        query_params: { orgs, ids },
        format: 'JSONEachRow',
      });
      const rows = await rs.json<{ org_id: string; batch_id: string; rows: number | string }>();
      return new Map(rows.map((r) => [batchKey(r.org_id, r.batch_id), Number(r.rows)]));
    },
    async record(batches, at) {
      const body = batches
        .map((p) => `${escapeTsv(p.orgId)}\t${escapeTsv(p.batchId)}\t${p.accepted}\t${formatTs(at)}\n`)
        .join('');
      await insert('ingest_batches', ['org_id', 'batch_id', 'rows', 'ts'], Buffer.from(body));
    },
  };
}
