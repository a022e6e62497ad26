import { Worker } from 'node:worker_threads';
import { detectTool, getSampleSummary, parseOutput, ParseError } from '@clusterscope/bench';
import type { TBenchSample, TFormat, TMetric, TParseResult } from '@clusterscope/schema';
import { EncodeError, encodeSamplesToBytes, type TEncodedBytes } from '@clusterscope/tsdb/encode';
import { decodeJsonBody, type TJsonBody, type TJsonLimits } from './json-body';
import { logOf, type TLogger } from '../core/logger';

/** Messages to the parse worker (parse-worker.ts). */
export type TParseJob =
  | { id: number; op: 'parse'; output: string; tool?: TFormat }
  /** A raw body, transferred: decoded (UTF-8) and checked on the worker, handed back with the answer. */
  | { id: number; op: 'parse-bytes'; bytes: Uint8Array; tool?: TFormat; rows?: TSampleRows }
  | { id: number; op: 'detect'; output: string }
  /** A JSON request body, transferred: decodeJsonBody on the worker. */
  | { id: number; op: 'json'; bytes: Uint8Array; limits: TJsonLimits };

/** Answers from the parse worker. */
export type TParseAnswer =
  | { id: number; ok: true; result: TParseResult; bytes?: Uint8Array; samples?: TOutputSamples }
  | { id: number; ok: true; tool: TFormat | null }
  | { id: number; ok: true; json: TJsonBody }
  | {
      id: number;
      ok: false;
      message: string;
      recognised?: string;
      tool?: TFormat | null;
      parseError: boolean;
      /** The bytes are not text a parser takes (not UTF-8, a NUL): a 400, not a 422. */
      badInput?: boolean;
    }
  /**
   * The output parsed within its budget, which stops there: encoding its samples (linear in the rows)
   * is not the parsers' risk the budget guards against. The answer follows.
   */
  | { id: number; parsed: true }
  /** Sent once when the worker has loaded: budgets start only then. */
  | { ready: true };

/** Where a parsed output's interval samples go: bench_sample rows of this run. */
export interface TSampleRows {
  orgId: string;
  clusterId: string | null;
  runId: string;
  /** The run's start (epoch ms): a sample without its own time is at start + elapsed. */
  startedAt: number;
}

/**
 * A parsed output's interval samples, ready to store: TabSeparated bench_sample rows and their summary.
 * They stay on the parse worker's side as objects: tens of thousands of them, cloned or encoded on the
 * event loop, would stall every other request for seconds.
 */
export interface TOutputSamples {
  count: number;
  encoded: TEncodedBytes;
  /** getSampleSummary of the samples. */
  summary: TMetric[];
}

/** A parsed output with its samples taken out as TOutputSamples (`result.samples` is then empty). */
export interface TParsedBytes {
  result: TParseResult;
  bytes: Uint8Array;
  samples?: TOutputSamples;
}

/** bench_sample rows of a parsed output, encoded, with their summary (none without samples). */
export function encodeOutputSamples(result: TParseResult, rows: TSampleRows): TOutputSamples | undefined {
  if (result.samples.length === 0) return undefined;
  let encoded: TEncodedBytes;
  try {
    encoded = encodeSamplesToBytes(rows.orgId, rows.clusterId, toBenchSamples(rows, result.samples));
  } catch (err) {
    if (err instanceof EncodeError) throw new ParseInputError(err.message);
    throw err;
  }
  return { count: result.samples.length, encoded, summary: getSampleSummary(result.samples) };
}

/** Interval samples as bench_sample rows of the run `rows` names. */
export function toBenchSamples(
  rows: Pick<TSampleRows, 'runId' | 'startedAt'>,
  samples: readonly { ts?: number; elapsed_s: number; values: Record<string, number> }[],
): TBenchSample[] {
  return samples.map((s) => ({
    kind: 'bench_sample',
    ts: s.ts ?? rows.startedAt + Math.round(s.elapsed_s * 1000),
    run_id: rows.runId,
    elapsed_s: s.elapsed_s,
    values: s.values,
  }));
}

/** parseOutput of a raw body, with its samples encoded for `rows` when given (the parse worker's job). */
export function parseOutputBytes(
  bytes: Uint8Array,
  tool?: TFormat,
  rows?: TSampleRows,
  onParsed?: () => void,
): TParsedBytes {
  const result = parseOutput(decodeOutput(bytes), tool);
  onParsed?.();
  const samples = rows ? encodeOutputSamples(result, rows) : undefined;
  return samples ? { result: { ...result, samples: [] }, bytes, samples } : { result, bytes };
}

/** The buffers of an answer that move to the other thread instead of being copied. */
export function transferOf(a: { bytes?: Uint8Array; samples?: TOutputSamples }): ArrayBuffer[] {
  const out = a.bytes ? [a.bytes.buffer as ArrayBuffer] : [];
  for (const b of Object.values(a.samples?.encoded.bodies ?? {})) out.push(b.buffer as ArrayBuffer);
  return out;
}

/** Tool output parsed within its time budget, off the request thread. */
export interface TParser {
  /** parseOutput on a worker: throws ParseError (bad output), ParseTimeout or WorkerError. */
  parse(output: string, tool?: TFormat): Promise<TParseResult>;
  /**
   * parseOutput of a raw body on a worker, the body's buffer transferred there and back, so the event loop
   * never holds it as a string; throws ParseInputError when it is not UTF-8 text without NUL. With `rows`,
   * the interval samples come back encoded (TOutputSamples) instead of as objects.
   */
  parseBytes(bytes: Uint8Array, tool?: TFormat, rows?: TSampleRows): Promise<TParsedBytes>;
  /** detectTool on a worker. */
  detect(output: string): Promise<TFormat | null>;
  /**
   * decodeJsonBody on a worker, the body's buffer transferred there: a large body is never scanned or parsed
   * on the event loop. Throws ParseTimeout or ParseWorkerError.
   */
  parseJson(bytes: Uint8Array, limits: TJsonLimits): Promise<TJsonBody>;
  close(): Promise<void>;
}

/** The output took longer than the budget to parse: its worker was stopped. */
export class ParseTimeout extends Error {
  constructor(readonly budgetMs: number) {
    super(`the output could not be parsed in time (${budgetMs / 1000} s)`);
  }
}

/** A raw body that is not text a parser takes (a 400). */
export class ParseInputError extends Error {}

/** UTF-8 text without NUL (no store takes NUL as text), or ParseInputError. */
export function decodeOutput(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ParseInputError('the body is not UTF-8');
  }
  if (text.includes('\u0000')) throw new ParseInputError('may not contain a NUL character (\\u0000)');
  return text;
}

/** The parse worker died or is closed (a 503). */
export class ParseWorkerError extends Error {}

export interface TParserOptions {
  /** The worker script (the bundled parse-worker.js, or parse-worker.ts with a TS loader); none parses in-thread. */
  entry?: string | URL;
  /** Most milliseconds one output may take; past it the worker is terminated and a fresh one started. */
  budgetMs: number;
  execArgv?: string[];
  log?: TLogger;
}

/** Parses on the calling thread (vite dev, scripts): no budget. */
export const inThreadParser: TParser = {
  parse: async (output, tool) => parseOutput(output, tool),
  parseBytes: async (bytes, tool, rows) => parseOutputBytes(bytes, tool, rows),
  detect: async (output) => detectTool(output),
  parseJson: async (bytes, limits) => decodeJsonBody(bytes, limits),
  close: async () => undefined,
};

/** `bytes` itself when it owns its whole buffer, else a copy: only such a buffer can be transferred. */
const ownBuffer = (bytes: Uint8Array) =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();

interface TQueued {
  job: TParseJob;
  resolve(a: TParseAnswer): void;
  reject(e: Error): void;
}

/**
 * One worker thread, started on first use, parsing one output at a time in arrival order. Each output gets
 * `budgetMs` from the moment the (loaded) worker starts on it: a parser that runs past it (a pathological input the
 * linear-time parsers should never produce) is terminated with its thread, its request answers 422, and the next
 * output gets a new worker. The event loop only copies the string across.
 */
export function createParser(opts: TParserOptions): TParser {
  if (!opts.entry) return inThreadParser;
  const entry = opts.entry;
  const log = opts.log ?? logOf({});
  let worker: Worker | null = null;
  let ready = false;
  let busy: (TQueued & { timer: NodeJS.Timeout }) | null = null;
  const queue: TQueued[] = [];
  let nextId = 1;
  let closed = false;

  const settle = () => {
    const b = busy;
    busy = null;
    if (b) clearTimeout(b.timer);
    return b;
  };
  const spawn = () => {
    const w = new Worker(entry, { execArgv: opts.execArgv });
    w.on('message', (a: TParseAnswer) => {
      if ('ready' in a) {
        if (worker === w) ready = true;
        return pump();
      }
      if ('parsed' in a) {
        if (busy?.job.id === a.id) clearTimeout(busy.timer);
        return;
      }
      if (busy?.job.id !== a.id) return;
      settle()!.resolve(a);
      pump();
    });
    const fail = (why: string) => {
      if (worker !== w) return;
      worker = null;
      ready = false;
      settle()?.reject(new ParseWorkerError(`parse worker ${why}`));
      pump();
    };
    w.on('error', (err) => {
      log.error({ err: err.message }, 'parse worker failed');
      fail(`failed: ${err.message}`);
    });
    w.on('exit', (code) => fail(`exited (code ${code})`));
    w.unref();
    return w;
  };
  const pump = () => {
    if (busy || closed || queue.length === 0) return;
    if (!worker) {
      ready = false;
      worker = spawn();
    }
    if (!ready) return;
    const w = worker;
    const next = queue.shift()!;
    const timer = setTimeout(() => {
      if (busy?.job !== next.job) return;
      settle();
      worker = null;
      ready = false;
      log.warn({ budgetMs: opts.budgetMs }, 'parse over budget; worker recycled');
      void w.terminate();
      next.reject(new ParseTimeout(opts.budgetMs));
      pump();
    }, opts.budgetMs);
    busy = { ...next, timer };
    const j = next.job;
    w.postMessage(j, j.op === 'parse-bytes' || j.op === 'json' ? [j.bytes.buffer as ArrayBuffer] : []);
  };
  const send = (job: TParseJob) =>
    new Promise<TParseAnswer>((resolve, reject) => {
      if (closed) return reject(new ParseWorkerError('parse worker is closed'));
      queue.push({ job, resolve, reject });
      pump();
    });
  const fromAnswer = (a: TParseAnswer): Error => {
    if ('ready' in a || 'parsed' in a || a.ok) return new Error('parse worker answered out of turn');
    if (a.badInput) return new ParseInputError(a.message);
    return a.parseError
      ? new ParseError(a.message, a.recognised ?? '', a.tool ?? null)
      : new Error(a.message);
  };

  return {
    async parse(output, tool) {
      const a = await send({ id: nextId++, op: 'parse', output, ...(tool ? { tool } : {}) });
      if ('result' in a) return a.result;
      throw fromAnswer(a);
    },
    async parseBytes(bytes, tool, rows) {
      // Only a buffer of its own can be transferred (a Buffer may be a view into a shared pool).
      const a = await send({
        id: nextId++,
        op: 'parse-bytes',
        bytes: ownBuffer(bytes),
        ...(tool ? { tool } : {}),
        ...(rows ? { rows } : {}),
      });
      if ('result' in a && a.bytes)
        return { result: a.result, bytes: a.bytes, ...(a.samples ? { samples: a.samples } : {}) };
      throw fromAnswer(a);
    },
    async detect(output) {
      const a = await send({ id: nextId++, op: 'detect', output });
      if ('ok' in a && a.ok && 'tool' in a) return a.tool;
      throw fromAnswer(a);
    },
    async parseJson(bytes, limits) {
      const a = await send({ id: nextId++, op: 'json', bytes: ownBuffer(bytes), limits });
      if ('json' in a) return a.json;
      throw fromAnswer(a);
    },
    async close() {
      closed = true;
      for (const q of queue.splice(0)) q.reject(new ParseWorkerError('parse worker is closed'));
      settle()?.reject(new ParseWorkerError('parse worker is closed'));
      await worker?.terminate();
      worker = null;
    },
  };
}
