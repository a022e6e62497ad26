/** Worker-thread entry of the ingest pool (ingest-pool.ts); bundled by apps/web into ingest-worker.js. */
import { parentPort } from 'node:worker_threads';
import type { TSample } from '@clusterscope/schema';
import { EncodeError, encodeSamplesToBytes } from '@clusterscope/tsdb/encode';
import type { TAnswer, TJob } from './ingest-pool';
import { decodeBatch } from './ingest-prep';
import { tuneThread } from '../core/os-thread';

const port = parentPort;
if (!port) throw new Error('ingest-worker must run in a worker thread');
tuneThread('cs-ingest');

/** Decoded batches waiting for their encode (or drop), by job id. */
const held = new Map<number, readonly TSample[]>();

port.on('message', (job: TJob) => {
  try {
    if (job.op === 'decode') {
      const d = decodeBatch(job.bytes, job.gz, job.maxBytes);
      if (!d.ok) return post({ id: job.id, ...d });
      held.set(job.id, d.batch.samples);
      return post({ id: job.id, ok: true, head: d.head });
    }
    const samples = held.get(job.id);
    held.delete(job.id);
    if (job.op === 'drop') return post({ id: job.id, ok: false, fault: 'dropped' });
    if (!samples) return post({ id: job.id, ok: false, fault: `no decoded batch ${job.id}` });
    const encoded = encodeSamplesToBytes(job.orgId, job.clusterId, samples, { agent: job.agent });
    const transfer = Object.values(encoded.bodies).map((b) => b.buffer as ArrayBuffer);
    port.postMessage({ id: job.id, ok: true, encoded } satisfies TAnswer, transfer);
  } catch (err) {
    const e = err as Error;
    post({ id: job.id, ok: false, fault: e.message, encodeError: e instanceof EncodeError });
  }
});

function post(a: TAnswer): void {
  port!.postMessage(a);
}
