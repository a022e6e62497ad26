/**
 * Durable outbox: append-only segment files of length-prefixed, CRC-checked records, fsync'd per
 * batch; a cursor file (atomically replaced) marks what the server acknowledged. A torn tail from a
 * crash fails its length/CRC check and is truncated on open. Bounded: when full, the oldest
 * segments are evicted (counted).
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { Logger } from './lib/log';

const HEADER = 8; // u32 payload length + u32 crc32(payload)
const MAX_RECORD = 64 * 1024 * 1024;
const SEGMENT_RE = /^seg-(\d{16})\.log$/;

export interface OutboxRecord {
  batchId: string;
  samples: number;
  /** gzipped JSON body, ready to send. */
  body: Buffer;
  seq: number;
  offset: number;
  end: number;
}

interface Segment {
  seq: number;
  size: number;
  records: number;
}

export interface OutboxOptions {
  dir: string;
  maxBytes: number;
  segmentBytes: number;
  logger: Logger;
  onEvict?: (batches: number) => void;
}

const segName = (seq: number) => `seg-${String(seq).padStart(16, '0')}.log`;

function encodeRecord(batchId: string, samples: number, body: Buffer): Buffer {
  const id = Buffer.from(batchId, 'utf8');
  const payload = Buffer.allocUnsafe(2 + id.length + 4 + body.length);
  payload.writeUInt16LE(id.length, 0);
  id.copy(payload, 2);
  payload.writeUInt32LE(samples, 2 + id.length);
  body.copy(payload, 6 + id.length);
  const head = Buffer.allocUnsafe(HEADER);
  head.writeUInt32LE(payload.length, 0);
  head.writeUInt32LE(crc32(payload), 4);
  return Buffer.concat([head, payload]);
}

function decodePayload(p: Buffer): { batchId: string; samples: number; body: Buffer } {
  const idLen = p.readUInt16LE(0);
  return {
    batchId: p.subarray(2, 2 + idLen).toString('utf8'),
    samples: p.readUInt32LE(2 + idLen),
    body: p.subarray(6 + idLen),
  };
}

/** Read the record at `offset`; undefined at a clean end, a torn tail or a corrupt record. */
function readRecordAt(
  fd: number,
  offset: number,
  fileSize: number,
): { payload: Buffer; end: number } | undefined {
  if (offset + HEADER > fileSize) return undefined;
  const head = Buffer.alloc(HEADER);
  readSync(fd, head, 0, HEADER, offset);
  const len = head.readUInt32LE(0);
  if (len < 6 || len > MAX_RECORD || offset + HEADER + len > fileSize) return undefined;
  const payload = Buffer.alloc(len);
  readSync(fd, payload, 0, len, offset + HEADER);
  if (crc32(payload) !== head.readUInt32LE(4)) return undefined;
  return { payload, end: offset + HEADER + len };
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* some filesystems refuse directory fsync */
  }
}

export class Outbox {
  private segments: Segment[] = [];
  private cursor = { seq: 0, offset: 0 };
  private pendingCount = 0;
  private evicted = 0;
  private activeFd: number | undefined;
  private activeSeq = -1;
  private readFd: { seq: number; fd: number } | undefined;
  private readonly quarantineDir: string;

  constructor(private readonly opts: OutboxOptions) {
    this.quarantineDir = join(opts.dir, 'quarantine');
  }

  /** Scan segments (truncating torn tails) and restore the cursor. */
  open(): void {
    mkdirSync(this.opts.dir, { recursive: true });
    const seqs = readdirSync(this.opts.dir)
      .map((n) => SEGMENT_RE.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const cursorFile = join(this.opts.dir, 'cursor.json');
    if (existsSync(cursorFile)) {
      try {
        const c = JSON.parse(readFileSync(cursorFile, 'utf8')) as { seq?: unknown; offset?: unknown };
        if (typeof c.seq === 'number' && typeof c.offset === 'number')
          this.cursor = { seq: c.seq, offset: c.offset };
      } catch {
        this.opts.logger.warn('outbox cursor unreadable; replaying from the oldest segment', {
          file: cursorFile,
        });
      }
    }
    this.pendingCount = 0;
    for (const seq of seqs) {
      const path = join(this.opts.dir, segName(seq));
      const fd = openSync(path, 'r+');
      try {
        const size = fstatSync(fd).size;
        let off = 0;
        let records = 0;
        for (;;) {
          const r = readRecordAt(fd, off, size);
          if (!r) break;
          records++;
          if (seq > this.cursor.seq || (seq === this.cursor.seq && off >= this.cursor.offset))
            this.pendingCount++;
          off = r.end;
        }
        if (off < size) {
          this.opts.logger.warn('outbox: ignoring torn/corrupt tail', {
            segment: segName(seq),
            bytes: size - off,
          });
          ftruncateSync(fd, off);
          fsyncSync(fd);
        }
        this.segments.push({ seq, size: off, records });
      } finally {
        closeSync(fd);
      }
    }
    // Never append after a possibly-torn tail: new writes go to a fresh segment.
    this.activeSeq = (seqs.at(-1) ?? 0) + 1;
    const first = this.segments[0];
    if (first && this.cursor.seq < first.seq) this.cursor = { seq: first.seq, offset: 0 };
    this.dropConsumedSegments();
  }

  stats(): { bytes: number; pending: number; evictions: number } {
    return { bytes: this.totalBytes(), pending: this.pendingCount, evictions: this.evicted };
  }

  private totalBytes(): number {
    return this.segments.reduce((a, s) => a + s.size, 0);
  }

  /** Durably append one batch (fsync before returning). */
  append(batchId: string, samples: number, body: Buffer): void {
    const rec = encodeRecord(batchId, samples, body);
    if (rec.length > this.opts.maxBytes)
      throw new Error(`batch of ${rec.length} bytes exceeds the outbox size`);
    let active = this.segments.at(-1)?.seq === this.activeSeq ? this.segments.at(-1) : undefined;
    if (active && active.size + rec.length > this.opts.segmentBytes && active.size > 0) {
      this.rotate();
      active = undefined;
    }
    while (this.totalBytes() + rec.length > this.opts.maxBytes && this.segments.length > 0) {
      if (this.segments[0].seq === this.activeSeq) {
        this.rotate();
        active = undefined;
      }
      this.evictOldest();
    }
    if (!active) {
      active = { seq: this.activeSeq, size: 0, records: 0 };
      this.segments.push(active);
      this.activeFd = openSync(join(this.opts.dir, segName(this.activeSeq)), 'a');
      fsyncDir(this.opts.dir);
    }
    writeSync(this.activeFd!, rec);
    fsyncSync(this.activeFd!);
    active.size += rec.length;
    active.records++;
    this.pendingCount++;
  }

  private rotate(): void {
    if (this.activeFd !== undefined) closeSync(this.activeFd);
    this.activeFd = undefined;
    this.activeSeq++;
  }

  private evictOldest(): void {
    const seg = this.segments.shift()!;
    let lost = 0;
    if (seg.seq > this.cursor.seq) lost = seg.records;
    else if (seg.seq === this.cursor.seq) lost = this.countFrom(seg, this.cursor.offset);
    this.closeReadFd(seg.seq);
    unlinkSync(join(this.opts.dir, segName(seg.seq)));
    this.pendingCount -= lost;
    this.evicted += lost;
    const next = this.segments[0];
    if (seg.seq >= this.cursor.seq) this.setCursor(next ? next.seq : this.activeSeq, 0);
    if (lost > 0) {
      this.opts.logger.warn('outbox full: evicted oldest batches', {
        batches: lost,
        segment: segName(seg.seq),
        max_bytes: this.opts.maxBytes,
      });
      this.opts.onEvict?.(lost);
    }
  }

  private countFrom(seg: Segment, offset: number): number {
    const fd = openSync(join(this.opts.dir, segName(seg.seq)), 'r');
    try {
      let n = 0;
      let off = offset;
      for (let r = readRecordAt(fd, off, seg.size); r; r = readRecordAt(fd, off, seg.size)) {
        n++;
        off = r.end;
      }
      return n;
    } finally {
      closeSync(fd);
    }
  }

  /** The oldest unacknowledged batch. */
  peek(): OutboxRecord | undefined {
    this.dropConsumedSegments();
    for (;;) {
      const seg =
        this.segments.find((s) => s.seq === this.cursor.seq) ??
        this.segments.find((s) => s.seq > this.cursor.seq);
      if (!seg) return undefined;
      if (seg.seq !== this.cursor.seq) this.setCursor(seg.seq, 0);
      if (this.cursor.offset < seg.size) {
        const fd = this.getReadFd(seg.seq);
        const r = readRecordAt(fd, this.cursor.offset, seg.size);
        if (r) return { ...decodePayload(r.payload), seq: seg.seq, offset: this.cursor.offset, end: r.end };
        // Corruption after open (disk error): skip the rest of this segment.
        const lost = this.countFrom(seg, this.cursor.offset);
        this.opts.logger.error('outbox: corrupt record, skipping rest of segment', {
          segment: segName(seg.seq),
          offset: this.cursor.offset,
        });
        this.pendingCount -= lost;
        seg.size = this.cursor.offset;
      }
      if (seg.seq === this.activeSeq) return undefined;
      const next = this.segments.find((s) => s.seq > seg.seq);
      this.setCursor(next ? next.seq : this.activeSeq, 0);
      this.dropConsumedSegments();
    }
  }

  /** Mark a peeked record delivered; durable before returning. */
  ack(rec: OutboxRecord): void {
    if (rec.seq !== this.cursor.seq || rec.offset !== this.cursor.offset)
      throw new Error('outbox: ack out of order');
    this.setCursor(rec.seq, rec.end);
    this.pendingCount--;
    this.dropConsumedSegments();
  }

  /** Move a batch the server rejected into quarantine (with the reason), then ack it. */
  quarantine(rec: OutboxRecord, reason: { status: number; message: string }): string {
    mkdirSync(this.quarantineDir, { recursive: true });
    const base = join(this.quarantineDir, rec.batchId.replace(/[^\w.-]/g, '_'));
    writeFileSync(`${base}.json.gz`, rec.body);
    writeFileSync(
      `${base}.reason.json`,
      JSON.stringify(
        { batchId: rec.batchId, samples: rec.samples, quarantinedAt: new Date().toISOString(), ...reason },
        null,
        2,
      ) + '\n',
    );
    fsyncDir(this.quarantineDir);
    this.ack(rec);
    return `${base}.json.gz`;
  }

  private setCursor(seq: number, offset: number): void {
    this.cursor = { seq, offset };
    const file = join(this.opts.dir, 'cursor.json');
    const tmp = `${file}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, JSON.stringify(this.cursor));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    fsyncDir(this.opts.dir);
  }

  /** Delete segments entirely before the cursor (never the active one). */
  private dropConsumedSegments(): void {
    while (this.segments.length > 0) {
      const s = this.segments[0];
      const consumed =
        s.seq < this.cursor.seq ||
        (s.seq === this.cursor.seq && this.cursor.offset >= s.size && s.seq !== this.activeSeq);
      if (!consumed || s.seq === this.activeSeq) return;
      this.closeReadFd(s.seq);
      unlinkSync(join(this.opts.dir, segName(s.seq)));
      this.segments.shift();
    }
  }

  private getReadFd(seq: number): number {
    if (this.readFd?.seq === seq) return this.readFd.fd;
    if (this.readFd) closeSync(this.readFd.fd);
    this.readFd = { seq, fd: openSync(join(this.opts.dir, segName(seq)), 'r') };
    return this.readFd.fd;
  }

  private closeReadFd(seq: number): void {
    if (this.readFd?.seq === seq) {
      closeSync(this.readFd.fd);
      this.readFd = undefined;
    }
  }

  close(): void {
    if (this.activeFd !== undefined) closeSync(this.activeFd);
    if (this.readFd) closeSync(this.readFd.fd);
    this.activeFd = undefined;
    this.readFd = undefined;
  }

  /** Files in quarantine (for tests / --check). */
  listQuarantine(): string[] {
    try {
      return readdirSync(this.quarantineDir).filter((n) => n.endsWith('.json.gz'));
    } catch {
      return [];
    }
  }

  /** Total on-disk size of segment files (for tests). */
  diskBytes(): number {
    return readdirSync(this.opts.dir)
      .filter((n) => SEGMENT_RE.test(n))
      .reduce((a, n) => a + statSync(join(this.opts.dir, n)).size, 0);
  }
}
