import { describe, expect, it } from 'vitest';
import { createSlot, WorkerError, type TAnswer, type TJob } from './ingest-pool';

/** A worker stand-in: keeps what was posted to it; the test answers for it. */
function fakeWorker() {
  const posted: TJob[] = [];
  let closed = false;
  const slot = createSlot(
    (job) => void posted.push(job),
    () => closed,
  );
  return { posted, slot, close: () => (closed = true) };
}

const decode = (id: number): TJob => ({ op: 'decode', id, bytes: new Uint8Array(), gz: false, maxBytes: 1 });
const encode = (id: number): TJob => ({ op: 'encode', id, orgId: 'o', clusterId: 'c' });
const done = (id: number): TAnswer => ({ id, ok: true, encoded: { bodies: {}, rows: 0 } });

describe('ingest worker slot', () => {
  it('posts one job at a time and the next after each answer', async () => {
    const { posted, slot } = fakeWorker();
    const a = slot.send(decode(1));
    const b = slot.send(decode(2));
    expect(posted.map((j) => j.id)).toEqual([1]);
    expect(slot.load).toBe(2);
    slot.answer(done(1));
    await expect(a).resolves.toEqual(done(1));
    expect(posted.map((j) => j.id)).toEqual([1, 2]);
    slot.answer(done(2));
    await expect(b).resolves.toEqual(done(2));
    expect(slot.load).toBe(0);
  });

  it('puts encodes and drops ahead of waiting decodes, in their own order', () => {
    const { posted, slot } = fakeWorker();
    void slot.send(decode(1));
    void slot.send(decode(2));
    void slot.send(encode(3));
    void slot.send({ op: 'drop', id: 4 });
    for (const id of [1, 3, 4]) slot.answer(done(id));
    expect(posted.map((j) => j.id)).toEqual([1, 3, 4, 2]);
  });

  it('ignores an answer to another job than the one running', async () => {
    const { slot } = fakeWorker();
    let settled = false;
    void slot.send(decode(1)).then(() => (settled = true));
    slot.answer(done(9));
    await Promise.resolve();
    expect(settled).toBe(false);
  });

  it('rejects the running and waiting jobs when the worker is gone, and refuses jobs once closed', async () => {
    const { slot, close } = fakeWorker();
    const a = slot.send(decode(1));
    const b = slot.send(decode(2));
    slot.fail(new WorkerError('ingest worker 0 exited (code 1)'));
    await expect(a).rejects.toThrow('ingest worker 0 exited (code 1)');
    await expect(b).rejects.toBeInstanceOf(WorkerError);
    expect(slot.load).toBe(0);
    close();
    await expect(slot.send(decode(3))).rejects.toThrow('ingest workers are closed');
  });
});
