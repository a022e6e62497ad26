/** Worker-thread entry of the parser (parse-pool.ts); bundled by apps/web into parse-worker.js. */
import { parentPort } from 'node:worker_threads';
import { detectTool, parseOutput, ParseError } from '@clusterscope/bench';
import {
  ParseInputError,
  parseOutputBytes,
  transferOf,
  type TParseAnswer,
  type TParseJob,
} from './parse-pool';
import { decodeJsonBody } from './json-body';
import { tuneThread } from '../core/os-thread';

const port = parentPort;
if (!port) throw new Error('parse-worker must run in a worker thread');
// Below the event loop: a long parse must not slow the answers to other requests on a shared core.
tuneThread('cs-parse', 10);

port.on('message', (job: TParseJob) => {
  let a: TParseAnswer;
  try {
    a =
      job.op === 'detect'
        ? { id: job.id, ok: true, tool: detectTool(job.output) }
        : job.op === 'json'
          ? { id: job.id, ok: true, json: decodeJsonBody(job.bytes, job.limits) }
          : job.op === 'parse-bytes'
            ? {
                id: job.id,
                ok: true,
                ...parseOutputBytes(job.bytes, job.tool, job.rows, () =>
                  port!.postMessage({ id: job.id, parsed: true } satisfies TParseAnswer),
                ),
              }
            : { id: job.id, ok: true, result: parseOutput(job.output, job.tool) };
  } catch (err) {
    const e = err as Error;
    a =
      e instanceof ParseInputError
        ? { id: job.id, ok: false, message: e.message, parseError: false, badInput: true }
        : e instanceof ParseError
          ? {
              id: job.id,
              ok: false,
              message: e.message,
              recognised: e.recognised,
              tool: e.tool,
              parseError: true,
            }
          : { id: job.id, ok: false, message: e.message, parseError: false };
  }
  // The body and the encoded samples go back to the event loop without a copy (it stores them).
  port!.postMessage(a, 'result' in a ? transferOf(a) : []);
});
port.postMessage({ ready: true } satisfies TParseAnswer);
