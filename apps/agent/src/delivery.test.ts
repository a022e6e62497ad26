import { afterEach, describe, expect, it } from 'vitest';
import { startFakeIngest, type FakeIngest } from '../test/fake-ingest';
import { backoffMs, classifyResponse, Delivery } from './delivery';
import { parseRetryAfter } from './lib/http';
import { silentLogger } from './lib/log';
import { Metrics } from './metrics';
import { Outbox } from './outbox';
import { gzipSync } from 'node:zlib';
import { tempDir } from '../test/temp';

let fake: FakeIngest | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function setup(url: string) {
  const outbox = new Outbox({
    dir: tempDir('dlv'),
    maxBytes: 1 << 20,
    segmentBytes: 1 << 16,
    logger: silentLogger,
  });
  outbox.open();
  const metrics = new Metrics();
  const delivery = new Delivery(outbox, {
    url,
    token: 'test-token',
    timeoutMs: 2000,
    backoffInitialMs: 10,
    backoffMaxMs: 50,
    logger: silentLogger,
    metrics,
    userAgent: 'test',
  });
  const add = (
    id: string,
    samples: unknown[] = [{ kind: 'heartbeat', ts: 1, host: 'h', version: '1', uptime_s: 1 }],
  ) => outbox.append(id, samples.length, gzipSync(JSON.stringify({ batchId: id, samples })));
  return { outbox, metrics, delivery, add };
}

describe('delivery', () => {
  it('classifies responses', () => {
    expect(classifyResponse(202, '{"accepted":3,"duplicate":true}')).toEqual({
      kind: 'accepted',
      duplicate: true,
    });
    expect(classifyResponse(429, 'slow down', 3000)).toMatchObject({ kind: 'retry', afterMs: 3000 });
    expect(classifyResponse(401, 'bad token')).toMatchObject({ kind: 'retry', config: true });
    expect(classifyResponse(403, 'scope')).toMatchObject({ kind: 'retry', config: true });
    expect(classifyResponse(503, 'ch down')).toMatchObject({ kind: 'retry' });
    expect(classifyResponse(400, '{"issues":["samples.0.ts"]}')).toEqual({
      kind: 'reject',
      status: 400,
      message: '{"issues":["samples.0.ts"]}',
    });
    expect(classifyResponse(413, 'too large')).toMatchObject({ kind: 'reject', status: 413 });
  });

  it('computes jittered exponential backoff and Retry-After', () => {
    expect(backoffMs(0, 1000, 60_000, () => 0)).toBe(500);
    expect(backoffMs(3, 1000, 60_000, () => 1)).toBe(8000);
    expect(backoffMs(20, 1000, 60_000, () => 1)).toBe(60_000);
    expect(parseRetryAfter('7')).toBe(7000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('sends gzip JSON with the bearer token, acks on 202, in order', async () => {
    fake = await startFakeIngest();
    const { delivery, add, outbox, metrics } = setup(fake.url);
    add('batch-0001');
    add('batch-0002');
    expect(await delivery.drain(Date.now() + 5000)).toBe(true);
    expect([...fake.batches.keys()]).toEqual(['batch-0001', 'batch-0002']);
    expect(outbox.stats().pending).toBe(0);
    expect(metrics.get('clusterscope_agent_batches_sent_total')).toBe(2);
  });

  it('honours 429 Retry-After, then delivers the same batch', async () => {
    fake = await startFakeIngest();
    const { delivery, add } = setup(fake.url);
    add('batch-0001');
    fake.failWith = { status: 429, retryAfter: '1' };
    expect(await delivery.step()).toMatchObject({ kind: 'retry', afterMs: 1000 });
    fake.failWith = undefined;
    expect(await delivery.step()).toMatchObject({ kind: 'accepted' });
    expect([...fake.batches.keys()]).toEqual(['batch-0001']);
  });

  it('quarantines a 400 with the server message and moves on', async () => {
    fake = await startFakeIngest();
    const { delivery, add, outbox, metrics } = setup(fake.url);
    add('bad-00001', [{ kind: 'heartbeat', ts: -5 }]);
    add('batch-0002');
    expect(await delivery.drain(Date.now() + 5000)).toBe(true);
    expect(outbox.listQuarantine()).toEqual(['bad-00001.json.gz']);
    expect([...fake.batches.keys()]).toEqual(['batch-0002']);
    expect(metrics.get('clusterscope_agent_batches_quarantined_total')).toBe(1);
  });

  it('keeps batches on 401 (config problem) and on a dead server', async () => {
    fake = await startFakeIngest({ token: 'other' });
    const { delivery, add, outbox, metrics } = setup(fake.url);
    add('batch-0001');
    expect(await delivery.step()).toMatchObject({ kind: 'retry', config: true });
    expect(outbox.stats().pending).toBe(1);
    expect(outbox.listQuarantine()).toEqual([]);
    expect(metrics.get('clusterscope_agent_auth_failures_total')).toBe(1);
    const dead = setup('http://127.0.0.1:1');
    dead.add('batch-0001');
    expect(await dead.delivery.drain(Date.now() + 100)).toBe(false);
    expect(dead.outbox.stats().pending).toBe(1);
  });

  it('the background loop delivers what is appended later', async () => {
    fake = await startFakeIngest();
    const { delivery, add } = setup(fake.url);
    delivery.start();
    add('batch-0001');
    delivery.wake();
    add('batch-0002');
    delivery.wake();
    const end = Date.now() + 3000;
    while (fake.batches.size < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    await delivery.stop();
    expect([...fake.batches.keys()]).toEqual(['batch-0001', 'batch-0002']);
  });
});
