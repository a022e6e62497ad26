import { describe, expect, it } from 'vitest';
import { batchKey, createLedger, type TBatchEntry, type TLedgerStore } from './ledger';

/** The stored ledger in memory: what was recorded, and when. */
function memoryStore(): TLedgerStore & { rows: (TBatchEntry & { at: number })[] } {
  const rows: (TBatchEntry & { at: number })[] = [];
  return {
    rows,
    async find(batches) {
      const out = new Map<string, number>();
      for (const b of batches)
        for (const r of rows)
          if (r.orgId === b.orgId && r.batchId === b.batchId)
            out.set(
              batchKey(r.orgId, r.batchId),
              Math.max(out.get(batchKey(r.orgId, r.batchId)) ?? 0, r.accepted),
            );
      return out;
    },
    async record(batches, at) {
      for (const b of batches) rows.push({ orgId: b.orgId, batchId: b.batchId, accepted: b.accepted, at });
    },
  };
}

describe('ledger', () => {
  it('remembers stored batches up to its cap, forgetting the least recently remembered', () => {
    const ledger = createLedger<number>(memoryStore(), { recentCap: 2 });
    ledger.remember('a', 1);
    ledger.remember('b', 2);
    ledger.remember('a', 3);
    ledger.remember('c', 4);
    expect(ledger.recent('a')).toBe(3);
    expect(ledger.recent('b')).toBeUndefined();
    expect(ledger.recent('c')).toBe(4);
  });

  it('knows a write in flight until it settles, whether it resolves or rejects', async () => {
    const ledger = createLedger<string>(memoryStore(), { recentCap: 10 });
    let done!: (v: string) => void;
    let fail!: (e: Error) => void;
    const ok = new Promise<string>((r) => (done = r));
    const bad = new Promise<string>((_r, j) => (fail = j));
    ledger.track('ok', ok);
    ledger.track('bad', bad);
    expect(ledger.inflight('ok')).toBe(ok);
    expect(ledger.inflight('bad')).toBe(bad);
    done('x');
    fail(new Error('no'));
    await ok;
    await bad.catch(() => undefined);
    expect(ledger.inflight('ok')).toBeUndefined();
    expect(ledger.inflight('bad')).toBeUndefined();
  });

  it('splits batches into fresh ones and those recorded, per org, with the recorded count', async () => {
    const store = memoryStore();
    const ledger = createLedger<number>(store, { recentCap: 10 });
    const before = Date.now();
    await ledger.record([{ orgId: 'o1', batchId: 'b1', accepted: 7 }]);
    expect(store.rows).toEqual([{ orgId: 'o1', batchId: 'b1', accepted: 7, at: expect.any(Number) }]);
    expect(store.rows[0].at).toBeGreaterThanOrEqual(before);
    const a = { orgId: 'o1', batchId: 'b1', accepted: 9 };
    const b = { orgId: 'o2', batchId: 'b1', accepted: 9 };
    const c = { orgId: 'o1', batchId: 'b2', accepted: 1 };
    expect(await ledger.split([a, b, c])).toEqual({ fresh: [b, c], found: [[a, 7]] });
  });

  it('keys keep org and batch id apart', () => {
    expect(batchKey('a', 'bc')).not.toBe(batchKey('ab', 'c'));
  });
});
