import { Writable } from 'node:stream';
import type { TLiveBus } from '@clusterscope/db';
import { describe, expect, it } from 'vitest';
import { wakeJobWaiters } from './jobs';
import { createLogger } from '../core/logger';

/** A logger writing to a stream that keeps every line. */
function collectingLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, log: createLogger({ destination: stream }) };
}

/** A live bus whose PostgreSQL is down: every call rejects. */
const downBus: TLiveBus = {
  publish: async () => Promise.reject(new Error('connection refused')),
  subscribe: async () => Promise.reject(new Error('connection refused')),
  subscribeAll: async () => Promise.reject(new Error('connection refused')),
  onListening: (fn) => {
    fn(false);
    return () => undefined;
  },
  close: async () => undefined,
};

describe('job wake-ups', () => {
  it('a wake-up the bus fails to publish is logged once with its cause, not thrown', async () => {
    const { lines, log } = collectingLogger();
    expect(() => wakeJobWaiters({ jobBus: downBus, log }, 'org-1')).not.toThrow();
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'warn',
      orgId: 'org-1',
      err: 'Error: connection refused',
      msg: 'job wake-up not published: other instances re-check later',
    });
  });
});
