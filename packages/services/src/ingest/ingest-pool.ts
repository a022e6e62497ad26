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

interface TQueued {
  job: TJob;
  transfer: ArrayBuffer[];
  resolve(a: TAnswer): void;
  reject(e: Error): void;
}

/** One worker's jobs: the one it runs and those waiting for it. */
export interface TSlot {
  /** Jobs running or waiting. */
  readonly load: number;
  /** Queues a job; resolves with the worker's answer to it. */
  send(job: TJob, transfer?: ArrayBuffer[]): Promise<TAnswer>;
  /** The worker answered the job it runs: settles that job and posts the next. */
  answer(a: TAnswer): void;
  /** The worker is gone: rejects the job it ran and every waiting one. */
  fail(err: Error): void;
}

/**
 * One job at a time per worker, queued here: an encode (or drop) goes before waiting decodes, in their own
 * order, so a decoded batch is held only briefly (long-held batches get promoted and cost major GCs).
 * `post` hands a job to the worker; after `closed()` nothing more is posted or queued.
 */
export function createSlot(post: (job: TJob, transfer: ArrayBuffer[]) => void, closed: () => boolean): TSlot {
  let busy: TQueued | null = null;
  let queue: TQueued[] = [];
  const pump = () => {
    if (busy || closed()) return;
    const next = queue.shift();
    if (!next) return;
    busy = next;
    post(next.job, next.transfer);
  };
  return {
    get load() {
      return queue.length + (busy ? 1 : 0);
    },
    send: (job, transfer = []) =>
      new Promise<TAnswer>((resolve, reject) => {
        if (closed()) return reject(new WorkerError('ingest workers are closed'));
        const q: TQueued = { job, transfer, resolve, reject };
        if (job.op === 'decode') queue.push(q);
        else {
          const at = queue.findIndex((x) => x.job.op === 'decode');
          queue.splice(at < 0 ? queue.length : at, 0, q);
        }
        pump();
      }),
    answer(a) {
      const job = busy;
      busy = null;
      if (job && job.job.id === a.id) job.resolve(a);
      pump();
    },
    fail(err) {
      for (const q of [...(busy ? [busy] : []), ...queue]) q.reject(err);
      busy = null;
      queue = [];
    },
  };
}

/** A batch decoded on the worker behind `slot` (job `id`): it stays there until encoded or dropped. */
function heldOn(slot: TSlot, id: number, head: TBatchHead): TPrepared {
  return once(
    head,
    async (orgId, clusterId, agent) => {
      const e = await slot.send({ op: 'encode', id, orgId, clusterId, agent });
      if (e.ok && 'encoded' in e) return e.encoded;
      if (!e.ok && 'fault' in e) throw e.encodeError ? new EncodeError(e.fault) : new Error(e.fault);
      throw new Error('ingest worker answered encode without bodies');
    },
    () => void slot.send({ op: 'drop', id }).catch(() => undefined),
  );
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
  const workers: Worker[] = [];
  const slots: TSlot[] = [];

  /** Starts worker `i` and its slot; a worker that exits while the pool is open is replaced. */
  const spawn = (i: number) => {
    const worker = new Worker(entry, { execArgv: opts.execArgv });
    const slot = createSlot(
      (job, transfer) => worker.postMessage(job, transfer),
      () => closed,
    );
    worker.on('message', (a: TAnswer) => slot.answer(a));
    worker.on('error', (err) => {
      log.error({ worker: i, err: err.message }, 'ingest worker failed');
      slot.fail(new WorkerError(`ingest worker ${i} failed: ${err.message}`));
    });
    worker.on('exit', (code) => {
      slot.fail(new WorkerError(`ingest worker ${i} exited (code ${code})`));
      if (!closed) spawn(i);
    });
    worker.unref();
    workers[i] = worker;
    slots[i] = slot;
  };
  for (let i = 0; i < opts.size; i++) spawn(i);

  return {
    size: opts.size,
    async decode(bytes, gz, maxBytes) {
      // Least busy worker; the batch then stays on it until encoded or dropped.
      const slot = slots.reduce((a, b) => (b.load < a.load ? b : a));
      const id = nextId++;
      const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const own = whole && bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice();
      const a = await slot.send({ op: 'decode', id, bytes: own, gz, maxBytes }, [own.buffer as ArrayBuffer]);
      if (!a.ok) {
        if ('fault' in a) throw new Error(a.fault);
        return a;
      }
      if (!('head' in a)) throw new Error('ingest worker answered decode without a head');
      return { ok: true, prepared: heldOn(slot, id, a.head) };
    },
    async close() {
      closed = true;
      await Promise.all(workers.map((w) => w.terminate()));
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
