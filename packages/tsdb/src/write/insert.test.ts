import { describe, expect, it } from 'vitest';
import { INGEST_COLUMNS, INGEST_TABLES, type TEncodedBytes } from '../encode';
import { insertBatches, joinParts, namedInsert, type TInsertTsv } from './insert';

const bytes = (s: string) => new TextEncoder().encode(s);
const batch = (bodies: TEncodedBytes['bodies']) => ({ encoded: { bodies, rows: 1 } });

/** A store that keeps each insert's table and body, and rejects any body that contains "bad". */
function fakeStore() {
  const inserts: { table: string; columns: readonly string[]; body: string }[] = [];
  const insert: TInsertTsv = async (table, columns, body) => {
    const text = body.toString('utf8');
    if (text.includes('bad')) throw new Error(`rejected ${table}`);
    inserts.push({ table, columns, body: text });
  };
  return { inserts, insert };
}

describe('insertBatches', () => {
  it('makes one insert per table for all batches, in table order, with its columns', async () => {
    const { inserts, insert } = fakeStore();
    const failed = await insertBatches(insert, [
      batch({ heartbeats: bytes('h1\n'), node_status: bytes('n1\n') }),
      batch({ heartbeats: bytes('h2\n') }),
    ]);
    expect(failed.size).toBe(0);
    expect(inserts).toEqual([
      { table: 'node_status', columns: INGEST_COLUMNS.node_status, body: 'n1\n' },
      { table: 'heartbeats', columns: INGEST_COLUMNS.heartbeats, body: 'h1\nh2\n' },
    ]);
    expect(INGEST_TABLES.indexOf('node_status')).toBeLessThan(INGEST_TABLES.indexOf('heartbeats'));
  });

  it('isolates a rejected batch: the others are stored, only it fails, and from its failed table on', async () => {
    const { inserts, insert } = fakeStore();
    const good = batch({ node_status: bytes('n1\n'), heartbeats: bytes('h1\n') });
    const bad = batch({ node_status: bytes('n2\n'), heartbeats: bytes('bad\n') });
    const failed = await insertBatches(insert, [good, bad]);
    expect([...failed.keys()]).toEqual([bad]);
    expect(failed.get(bad)?.message).toBe('rejected heartbeats');
    expect(inserts.map((i) => [i.table, i.body])).toEqual([
      ['node_status', 'n1\nn2\n'],
      ['heartbeats', 'h1\n'],
    ]);
  });
});

describe('joinParts', () => {
  it('views a single part without copying and concatenates several', () => {
    const one = bytes('abc');
    const view = joinParts([one]);
    one[0] = 'x'.charCodeAt(0);
    expect(view.toString()).toBe('xbc');
    expect(joinParts([bytes('a'), bytes('b')]).toString()).toBe('ab');
  });
});

describe('namedInsert', () => {
  it("names ClickHouse and the table in an insert's error", async () => {
    const insert = namedInsert(async () => {
      throw new Error('boom');
    });
    await expect(insert('heartbeats', [], Buffer.alloc(0))).rejects.toThrow(
      'ClickHouse insert into heartbeats failed: boom',
    );
  });
});
