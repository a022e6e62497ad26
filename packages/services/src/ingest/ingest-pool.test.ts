import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { TSample } from '@clusterscope/schema';
import { encodeSamplesToBytes } from '@clusterscope/tsdb/encode';
import { afterAll, describe, expect, it } from 'vitest';
import { bootWorkerFromSource } from '../testing';
import { createIngestPool, defaultIngestWorkers, type TIngestPool } from './ingest-pool';

// The worker runs from source through tsx (production runs the bundled worker file).
const { entry, dir } = bootWorkerFromSource('ingest/ingest-worker.ts');

const ns = (i: number): TSample => ({
  kind: 'node_status', ts: 1_700_000_000_000 + i, node_id: 1 + i, address: `n${i}\t:26257`, sql_address: '',
  locality: 'region=eu', build: 'v24', started_at: null, updated_at: null, liveness: 'LIVE', is_live: true,
  is_available: true, is_draining: false, membership: 'active', replicas: 5, replicas_leaders: 1,
  replicas_leaseholders: 2, ranges: 5, ranges_unavailable: 0, ranges_underreplicated: 0, live_bytes: 2 ** 40 + i,
  key_bytes: 0, value_bytes: 0, intent_bytes: 0, system_bytes: 0, capacity: 1e12, capacity_available: 1,
  capacity_used: 2, uptime_s: 1.5,
}); // prettier-ignore
const hb: TSample = {
  kind: 'heartbeat',
  ts: 1_700_000_000_500,
  host: 'h',
  version: '1.2',
  uptime_s: 3,
} as TSample;
const body = (o: unknown) => new Uint8Array(Buffer.from(JSON.stringify(o)));
const text = (b: Uint8Array | undefined) => Buffer.from(b ?? []).toString('utf8');

const pools: TIngestPool[] = [];
const open = (size: number, e: string | URL = entry) => {
  const p = createIngestPool({ size, entry: e });
  pools.push(p);
  return p;
};
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe.each([0, 2])('ingest pool with %i workers', (size) => {
  it('decodes, summarizes and encodes exactly like the in-thread encoder', async () => {
    const pool = open(size);
    const samples = [ns(0), ns(1), hb];
    const d = await pool.decode(
      gzipSync(body({ batchId: 'batch-0001', cluster: 'c1', samples })),
      true,
      1 << 20,
    );
    if (!d.ok) throw new Error(d.error);
    expect(d.prepared.head).toMatchObject({ batchId: 'batch-0001', cluster: 'c1', count: 3 });
    expect(d.prepared.head.kinds.sort()).toEqual(['heartbeat', 'node_status']);
    expect(d.prepared.head.heartbeat?.host).toBe('h');
    const got = await d.prepared.encode('org', 'cid', 'agent-1');
    const want = encodeSamplesToBytes('org', 'cid', samples, { agent: 'agent-1' });
    expect(got.rows).toBe(3);
    expect(text(got.bodies.node_status)).toBe(text(want.bodies.node_status));
    expect(text(got.bodies.heartbeats)).toBe(text(want.bodies.heartbeats));
    await expect(d.prepared.encode('org', 'cid')).rejects.toThrow(/already encoded/);
  });

  it('answers bad bodies with 400/413 naming the problem', async () => {
    const pool = open(size);
    const bad = await pool.decode(body({ batchId: 'batch-0002', samples: [{ ...ns(0), replicas: -1 }] }), false, 1 << 20);
    expect(bad).toMatchObject({ ok: false, status: 400, issues: [expect.stringMatching(/^samples\.0\.replicas:/)] });
    expect(await pool.decode(body({}).subarray(0, 1), false, 1 << 20)).toMatchObject({ status: 400, error: /not valid JSON/ });
    expect(await pool.decode(new Uint8Array([1, 2, 3]), true, 1 << 20)).toMatchObject({ status: 400, error: /not valid gzip/ });
    const bomb = gzipSync(Buffer.alloc(4 << 20, 32));
    expect(await pool.decode(bomb, true, 1 << 20)).toMatchObject({ status: 413, error: /decompressed body exceeds/ });
  }); // prettier-ignore

  it('forgets a dropped batch', async () => {
    const pool = open(size);
    const d = await pool.decode(body({ batchId: 'batch-0003', samples: [ns(0)] }), false, 1 << 20);
    if (!d.ok) throw new Error(d.error);
    d.prepared.drop();
    d.prepared.drop();
    await expect(d.prepared.encode('o', 'c')).rejects.toThrow(/already encoded or dropped/);
  });
});

describe('a worker that dies', () => {
  it('fails its in-flight jobs instead of hanging, and is replaced', async () => {
    const crashing = join(dir, 'crash.mjs');
    writeFileSync(crashing, "import { parentPort } from 'node:worker_threads'; parentPort.on('message', () => process.exit(3));");
    const pool = open(1, crashing);
    await expect(pool.decode(body({}), false, 100)).rejects.toThrow(/ingest worker 0 exited \(code 3\)/);
    await expect(pool.decode(body({}), false, 100)).rejects.toThrow(/exited/);
  }); // prettier-ignore
});

describe('defaultIngestWorkers', () => {
  it('leaves the event loop a core: one per core but one, 1 to 4', () => {
    expect([1, 2, 3, 4, 5, 8, 64].map(defaultIngestWorkers)).toEqual([1, 1, 2, 3, 4, 4, 4]);
  });
});
