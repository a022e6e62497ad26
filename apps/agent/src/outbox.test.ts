import { appendFileSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from './lib/log';
import { Outbox } from './outbox';
import { tempDir } from '../test/temp';

const dirOf = () => tempDir('outbox');
const open = (dir: string, maxBytes = 1 << 20, segmentBytes = 4096) => {
  const o = new Outbox({ dir, maxBytes, segmentBytes, logger: silentLogger });
  o.open();
  return o;
};
const body = (i: number, size = 100) => Buffer.from(`batch-${i}:`.padEnd(size, 'x'));

/** A closed outbox in a fresh dir holding id-0..id-2 in one segment; returns the dir and the segment file. */
function threeInOneSegment(): { dir: string; seg: string } {
  const dir = dirOf();
  const o = open(dir);
  for (let i = 0; i < 3; i++) o.append(`id-${i}`, 1, body(i));
  o.close();
  return { dir, seg: join(dir, readdirSync(dir).find((n) => n.startsWith('seg-'))!) };
}

function drain(o: Outbox): string[] {
  const ids: string[] = [];
  for (let r = o.peek(); r; r = o.peek()) {
    ids.push(r.batchId);
    expect(r.body.toString().startsWith(`batch-${r.batchId.slice(3)}:`)).toBe(true);
    o.ack(r);
  }
  return ids;
}

describe('outbox', () => {
  it('delivers in append order across segments and deletes acknowledged segments', () => {
    const dir = dirOf();
    const o = open(dir, 1 << 20, 1000);
    for (let i = 0; i < 30; i++) o.append(`id-${i}`, i, body(i));
    expect(o.stats()).toMatchObject({ pending: 30, evictions: 0 });
    expect(readdirSync(dir).filter((n) => n.startsWith('seg-')).length).toBeGreaterThan(3);
    const r = o.peek()!;
    expect(r).toMatchObject({ batchId: 'id-0', samples: 0 });
    expect(o.peek()!.batchId).toBe('id-0'); // peek is idempotent
    expect(drain(o)).toEqual(Array.from({ length: 30 }, (_, i) => `id-${i}`));
    expect(o.stats().pending).toBe(0);
    // Only the active segment remains.
    expect(readdirSync(dir).filter((n) => n.startsWith('seg-'))).toHaveLength(1);
    o.close();
  });

  it('replays unacknowledged batches in order after a restart', () => {
    const dir = dirOf();
    const a = open(dir, 1 << 20, 1000);
    for (let i = 0; i < 12; i++) a.append(`id-${i}`, 1, body(i));
    for (let i = 0; i < 5; i++) a.ack(a.peek()!);
    a.close();
    const b = open(dir, 1 << 20, 1000);
    expect(b.stats().pending).toBe(7);
    b.append('id-12', 1, body(12));
    expect(drain(b)).toEqual(Array.from({ length: 8 }, (_, i) => `id-${i + 5}`));
    b.close();
  });

  it('ignores and truncates a torn tail (kill -9 mid-write)', () => {
    const { dir, seg } = threeInOneSegment();
    const full = statSync(seg).size;
    // Torn write: a header promising 500 bytes followed by only 10.
    const head = Buffer.alloc(8);
    head.writeUInt32LE(500, 0);
    appendFileSync(seg, Buffer.concat([head, Buffer.alloc(10, 1)]));
    const b = open(dir);
    expect(b.stats().pending).toBe(3);
    expect(statSync(seg).size).toBe(full);
    b.append('id-3', 1, body(3));
    expect(drain(b)).toEqual(['id-0', 'id-1', 'id-2', 'id-3']);
    b.close();
  });

  it('detects a record cut inside its payload and a bad checksum', () => {
    const { dir, seg } = threeInOneSegment();
    truncateSync(seg, statSync(seg).size - 7);
    expect(drain(open(dir))).toEqual(['id-0', 'id-1']);

    const { dir: dir2, seg: seg2 } = threeInOneSegment();
    const buf = readFileSync(seg2);
    const recLen = buf.length / 3;
    buf[recLen + 20] ^= 0xff; // flip a byte in record 2
    writeFileSync(seg2, buf);
    expect(drain(open(dir2))).toEqual(['id-0']);
  });

  it('evicts the oldest batches when full and counts them', () => {
    const dir = dirOf();
    const evicted: number[] = [];
    const o = new Outbox({
      dir,
      maxBytes: 5000,
      segmentBytes: 1000,
      logger: silentLogger,
      onEvict: (n) => evicted.push(n),
    });
    o.open();
    for (let i = 0; i < 100; i++) o.append(`id-${i}`, 1, body(i));
    const s = o.stats();
    expect(s.bytes).toBeLessThanOrEqual(5000);
    expect(o.diskBytes()).toBe(s.bytes);
    expect(s.evictions + s.pending).toBe(100);
    expect(s.evictions).toBeGreaterThan(50);
    expect(evicted.reduce((a, b) => a + b, 0)).toBe(s.evictions);
    const ids = drain(o);
    // Newest survive, in order, contiguous up to the last.
    expect(ids.at(-1)).toBe('id-99');
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => `id-${100 - ids.length + i}`));
    o.close();
  });

  it('evicts a partially acknowledged segment counting only unacknowledged batches', () => {
    const dir = dirOf();
    const o = open(dir, 2200, 1000);
    for (let i = 0; i < 8; i++) o.append(`id-${i}`, 1, body(i));
    o.ack(o.peek()!);
    o.ack(o.peek()!);
    for (let i = 8; i < 30; i++) o.append(`id-${i}`, 1, body(i));
    const s = o.stats();
    expect(s.evictions + s.pending + 2).toBe(30);
    const ids = drain(o);
    expect(ids.at(-1)).toBe('id-29');
    o.close();
  });

  it('quarantines a rejected batch with the reason and moves on', () => {
    const dir = dirOf();
    const o = open(dir);
    o.append('bad-1', 2, body(1));
    o.append('id-2', 1, body(2));
    const file = o.quarantine(o.peek()!, { status: 400, message: 'samples.0.ts: expected number' });
    expect(readFileSync(file).toString()).toBe(body(1).toString());
    const reason = JSON.parse(readFileSync(file.replace('.json.gz', '.reason.json'), 'utf8'));
    expect(reason).toMatchObject({
      batchId: 'bad-1',
      samples: 2,
      status: 400,
      message: 'samples.0.ts: expected number',
    });
    expect(o.listQuarantine()).toEqual(['bad-1.json.gz']);
    expect(o.peek()!.batchId).toBe('id-2');
    o.close();
  });

  it('rejects out-of-order acks', () => {
    const o = open(dirOf());
    o.append('id-1', 1, body(1));
    o.append('id-2', 1, body(2));
    const first = o.peek()!;
    o.ack(first);
    expect(() => o.ack(first)).toThrow(/out of order/);
    o.close();
  });
});
