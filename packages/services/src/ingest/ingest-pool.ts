import { Worker } from 'node:worker_threads';
import type { TSample } from '@clusterscope/schema';
import { EncodeError, encodeSamplesToBytes, type TEncodedBytes } from '@clusterscope/tsdb/encode';
import { decodeBatch, type TBatchHead, type TDecodeError } from './ingest-prep';
import { logOf, type TLogger } from '../core/logger';

/** A validated batch waiting for its cluster to be resolved; encode or drop it exactly once. */
export interface TPrepared {
  head: TBatchHead;
  encode(orgId: string, clusterId: string, agent?: string): Promise<TEncodedBytes>;
  /** Forget the batch without encoding it (duplicate, unknown cluster…). Safe to call twice. */
  drop(): void;
}

export type TDecodeResult = { ok: true; prepared: TPrepared } | ({ ok: false } & TDecodeError);

export interface TIngestPool {
  /** Worker threads (0: everything runs on the calling thread). */
  readonly size: number;
  /** Inflate, parse and validate a request body. The bytes are transferred (unusable afterwards). */
  decode(bytes: Uint8Array, gz: boolean, maxBytes: number): Promise<TDecodeResult>;
  close(): Promise<void>;
}

/** Messages to a worker (see ingest-worker.ts). */
export type TJob =
  | { op: 'decode'; id: number; bytes: Uint8Array; gz: boolean; maxBytes: number }
  | { op: 'encode'; id: number; orgId: string; clusterId: string; agent?: string }
  | { op: 'drop'; id: number };

/** Answers from a worker. */
export type TAnswer =
  | { id: number; ok: true; head: TBatchHead }
  | { id: number; ok: true; encoded: TEncodedBytes }
  | ({ id: number; ok: false } & TDecodeError)
  | { id: number; ok: false; fault: string; encodeError?: boolean };

export interface TPoolOptions {
  /** Worker threads; 0 decodes and encodes on the calling thread. */
  size: number;
  /** The worker script (the bundled ingest-worker.js, or ingest-worker.ts with a TS loader). */
  entry?: string | URL;
  execArgv?: string[];
  log?: TLogger;
}

/**
 * Workers for `cores` when INGEST_WORKERS is unset: one per core but one (1 to 4). The event loop and chDB's
 * insert threads keep a core, because a worker that competes with them for it stores fewer rows per second and
 * each worker's heap adds to the web process's RSS (docs/performance.md).
 */
export const defaultIngestWorkers = (cores: number) => Math.max(1, Math.min(4, cores - 1));

/** An ingest worker died or is closed: the batch was not stored (a 503; the agent retries). */
export class WorkerError extends Error {}

/** A prepared batch that encodes (or is dropped) once. */
function once(head: TBatchHead, encode: TPrepared['encode'], drop: () => void = () => undefined): TPrepared {
  let done = false;
  return {
    head,
    async encode(...args) {
      if (done) throw new Error('batch already encoded or dropped');
      done = true;
      return encode(...args);
    },
    drop() {
      if (done) return;
      done = true;
      drop();
    },
  };
}

/**
 * Ingest's CPU work (gunzip, JSON.parse, zod, TabSeparated encoding) on worker
 * threads, so the event loop only moves bytes and chDB's insert thread overlaps with the next
 * batches' parsing. A worker that dies fails its in-flight jobs (the requests answer 503 and the
 * agents retry) and is replaced.
 */
export function createIngestPool(opts: TPoolOptions): TIngestPool {
  if (opts.size <= 0 || !opts.entry) return inProcessPool();
  const entry = opts.entry;
  const log = opts.log ?? logOf({});
  let closed = false;
  let nextId = 1;

  interface TQueued {
    job: TJob;
    transfer: ArrayBuffer[];
    resolve(a: TAnswer): void;
    reject(e: Error): void;
  }
  /**
   * One job at a time per worker, queued here: an encode goes before waiting decodes, so a decoded
   * batch is held only briefly (long-held batches get promoted and cost major GCs).
   */
  interface TSlot {
    worker: Worker;
    busy: TQueued | null;
    queue: TQueued[];
  }
  const slots: TSlot[] = [];

  const pump = (slot: TSlot) => {
    if (slot.busy || closed) return;
    const next = slot.queue.shift();
    if (!next) return;
    slot.busy = next;
    slot.worker.postMessage(next.job, next.transfer);
  };

  const spawn = (i: number) => {
    const worker = new Worker(entry, { execArgv: opts.execArgv });
    const slot: TSlot = { worker, busy: null, queue: [] };
    worker.on('message', (a: TAnswer) => {
      const job = slot.busy;
      slot.busy = null;
      if (job && job.job.id === a.id) job.resolve(a);
      pump(slot);
    });
    const fail = (why: string) => {
      const err = new WorkerError(`ingest worker ${i} ${why}`);
      for (const q of [...(slot.busy ? [slot.busy] : []), ...slot.queue]) q.reject(err);
      slot.busy = null;
      slot.queue = [];
    };
    worker.on('error', (err) => {
      log.error({ worker: i, err: err.message }, 'ingest worker failed');
      fail(`failed: ${err.message}`);
    });
    worker.on('exit', (code) => {
      fail(`exited (code ${code})`);
      if (!closed) slots[i] = spawn(i);
    });
    worker.unref();
    return slot;
  };
  for (let i = 0; i < opts.size; i++) slots.push(spawn(i));

  const send = (slot: TSlot, job: TJob, transfer: ArrayBuffer[] = []) =>
    new Promise<TAnswer>((resolve, reject) => {
      if (closed) return reject(new WorkerError('ingest workers are closed'));
      const q: TQueued = { job, transfer, resolve, reject };
      if (job.op === 'decode') slot.queue.push(q);
      else {
        // Encodes (and drops) ahead of decodes, in their own order.
        const at = slot.queue.findIndex((x) => x.job.op === 'decode');
        slot.queue.splice(at < 0 ? slot.queue.length : at, 0, q);
      }
      pump(slot);
    });
  const load = (s: TSlot) => s.queue.length + (s.busy ? 1 : 0);

  return {
    size: opts.size,
    async decode(bytes, gz, maxBytes) {
      // Least busy worker; the batch then stays on it until encoded or dropped.
      const slot = slots.reduce((a, b) => (load(b) < load(a) ? b : a));
      const id = nextId++;
      const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const own = whole && bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice();
      const a = await send(slot, { op: 'decode', id, bytes: own, gz, maxBytes }, [own.buffer as ArrayBuffer]);
      if (!a.ok) {
        if ('fault' in a) throw new Error(a.fault);
        return a;
      }
      if (!('head' in a)) throw new Error('ingest worker answered decode without a head');
      return {
        ok: true,
        prepared: once(
          a.head,
          async (orgId, clusterId, agent) => {
            const e = await send(slot, { op: 'encode', id, orgId, clusterId, agent });
            if (e.ok && 'encoded' in e) return e.encoded;
            if (!e.ok && 'fault' in e) throw e.encodeError ? new EncodeError(e.fault) : new Error(e.fault);
            throw new Error('ingest worker answered encode without bodies');
          },
          () => void send(slot, { op: 'drop', id }).catch(() => undefined),
        ),
      };
    },
    async close() {
      closed = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}

/** A decoded batch kept on this thread. */
export function holdInProcess(head: TBatchHead, samples: readonly TSample[]): TPrepared {
  return once(head, async (orgId, clusterId, agent) =>
    encodeSamplesToBytes(orgId, clusterId, samples, { agent }),
  );
}

function inProcessPool(): TIngestPool {
  return {
    size: 0,
    async decode(bytes, gz, maxBytes) {
      const d = decodeBatch(bytes, gz, maxBytes);
      return d.ok ? { ok: true, prepared: holdInProcess(d.head, d.batch.samples) } : d;
    },
    close: async () => undefined,
  };
}
