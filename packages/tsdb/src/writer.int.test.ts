import { createClient, type ClickHouseClientConfigOptions } from '@clickhouse/client';
import type { TSample } from '@clusterscope/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TChClient, TTsdb } from './client';
import { openTempClickHouse } from './testing';
import { encodeSamplesToBytes } from './encode';
import { createWriter } from './writer';

let ch: TTsdb;
let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ ch, dir, cleanup } = await openTempClickHouse());
});
afterAll(async () => cleanup());

async function rows<T = Record<string, unknown>>(
  query: string,
  params: Record<string, unknown> = {},
): Promise<T[]> {
  return (await ch.client.query({ query, query_params: params, format: 'JSONEachRow' })).json<T>();
}
const count = async (table: string, org: string) =>
  Number(
    (await rows<{ n: number }>(`SELECT count() AS n FROM ${table} WHERE org_id = {o:String}`, { o: org }))[0]
      .n,
  );

const HOSTILE = [
  'tab\there',
  'new\nline\r\n',
  'back\\slash \\N \\t',
  `quotes ' " \``,
  'nul\0byte',
  'ünïcødé 😀 中文',
  "[1,2]'); DROP TABLE node_status; --",
  '',
];

// Relative to now: rows older than the TTL would be dropped.
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 2 * 3_600_000 + 123;

function nodeStatus(org: number, i: number, over: Partial<TSample & { kind: 'node_status' }> = {}): TSample {
  return {
    kind: 'node_status', ts: T0 + i * 10_000 + org, node_id: 1 + (i % 3), address: `n${i}:26257`, sql_address: '',
    locality: 'region=us', build: 'v24.1', started_at: T0 - 1000, updated_at: null, liveness: 'LIVE', is_live: true,
    is_available: true, is_draining: false, membership: 'active', replicas: 10 + i, replicas_leaders: 3,
    replicas_leaseholders: 4, ranges: 10, ranges_unavailable: 0, ranges_underreplicated: i % 2, live_bytes: 1e9 + i,
    key_bytes: 1, value_bytes: 2, intent_bytes: 0, system_bytes: 3, capacity: 1e12, capacity_available: 9e11,
    capacity_used: 1e11, uptime_s: 12.5, ...over,
  } as TSample; // prettier-ignore
}

describe('writer round trip', () => {
  it('stores every sample kind with hostile strings intact', async () => {
    const w = createWriter(ch);
    const samples: TSample[] = [
      nodeStatus(0, 0, { address: HOSTILE[0], locality: HOSTILE[1], build: HOSTILE[2], sql_address: HOSTILE[6] }),
      {
        kind: 'cgroup_usage', ts: T0, host: HOSTILE[3], node_id: null, cgroup: HOSTILE[1], version: 2,
        cpu_usage_usec: 9_007_199_254_740, cpu_nr_periods: 10, cpu_nr_throttled: 2, cpu_throttled_usec: 500,
        cpu_quota_usec: null, cpu_period_usec: 100000, cpu_weight: 100, cpu_shares: null, mem_current: 123,
        mem_max: 456, mem_swap_current: 0, mem_swap_max: null, mem_anon: 1, mem_file: 2,
        io: [
          { device: HOSTILE[2], rbytes: 1, wbytes: 2, rios: 3, wios: 4, rbps_max: null, wbps_max: 5, riops_max: null, wiops_max: null },
          { device: '8:16', rbytes: 10, wbytes: 20, rios: 30, wios: 40, rbps_max: 7, wbps_max: null, riops_max: 8, wiops_max: 9 },
        ],
        psi: { cpu_some_avg10: 1.5, cpu_some_total: 100, memory_some_avg10: 0, memory_full_avg10: 0.25, memory_full_total: 7,
          io_some_avg10: 2, io_full_avg10: 1, io_full_total: 9 },
      },
      {
        kind: 'host_metrics', ts: T0, host: HOSTILE[5], node_id: 2, cpus: 8, load1: 1.25, load5: 0.5, load15: 0,
        mem_total: 16e9, mem_available: 8e9, disks: [{ path: HOSTILE[6], total: 100, used: 60, avail: 40 }],
      },
      {
        kind: 'heartbeat', ts: T0, host: HOSTILE[4], version: '1.2.3', uptime_s: 99, capabilities: [HOSTILE[3], HOSTILE[2], 'x'],
        outbox_bytes: 10, outbox_pending: 2, outbox_evictions: 1,
      },
      { kind: 'bench_sample', ts: T0, run_id: HOSTILE[0], elapsed_s: 1.5, values: { tps: 1234.5, [HOSTILE[1]]: -1 } },
    ] as TSample[]; // prettier-ignore
    const res = await w.write('org-rt', 'cluster\t1', 'batch-roundtrip', samples, { agent: HOSTILE[2] });
    expect(res).toEqual({ accepted: 5, duplicate: false });

    const [ns] =
      await rows(`SELECT cluster_id, address, locality, build, sql_address, toUnixTimestamp64Milli(ts) AS t,
      started_at, updated_at, is_live, live_bytes FROM node_status WHERE org_id = 'org-rt'`);
    expect(ns).toMatchObject({
      cluster_id: 'cluster\t1', address: HOSTILE[0], locality: HOSTILE[1], build: HOSTILE[2], sql_address: HOSTILE[6],
      t: T0, updated_at: null, is_live: true, live_bytes: 1e9,
    }); // prettier-ignore

    const [cg] = await rows(`SELECT * EXCEPT ts FROM cgroup_usage WHERE org_id = 'org-rt'`);
    expect(cg).toMatchObject({
      host: HOSTILE[3], cgroup: HOSTILE[1], node_id: 0, cpu_usage_usec: 9_007_199_254_740, cpu_quota_usec: null,
      cpu_weight: 100, mem_max: 456, mem_swap_max: null, io_device: [HOSTILE[2], '8:16'], io_rbytes: [1, 10],
      io_wbps_max: [5, null], io_rbps_max: [null, 7], psi_cpu_some_avg10: 1.5, psi_memory_full_total: 7,
    }); // prettier-ignore

    const [hm] = await rows(
      `SELECT host, node_id, cpus, load1, disk_path, disk_used FROM host_metrics WHERE org_id = 'org-rt'`,
    );
    expect(hm).toEqual({
      host: HOSTILE[5],
      node_id: 2,
      cpus: 8,
      load1: 1.25,
      disk_path: [HOSTILE[6]],
      disk_used: [60],
    });

    const [hb] = await rows(
      `SELECT agent, host, version, capabilities, outbox_pending FROM heartbeats WHERE org_id = 'org-rt'`,
    );
    expect(hb).toEqual({
      agent: HOSTILE[2],
      host: HOSTILE[4],
      version: '1.2.3',
      capabilities: [HOSTILE[3], HOSTILE[2], 'x'],
      outbox_pending: 2,
    });

    const bs = await rows(`SELECT run_id, elapsed_s, toString(metric) AS metric, value FROM bench_samples
      WHERE org_id = 'org-rt' ORDER BY value`);
    expect(bs).toEqual([
      { run_id: HOSTILE[0], elapsed_s: 1.5, metric: HOSTILE[1], value: -1 },
      { run_id: HOSTILE[0], elapsed_s: 1.5, metric: 'tps', value: 1234.5 },
    ]);
    await w.close();
  });

  it('rejects a batch with a bad value alone, before it joins a coalesced insert', async () => {
    const w = createWriter(ch, { maxDelayMs: 30 });
    const good = w.write('org-bad', 'c', 'batch-good-1', [nodeStatus(0, 1)]);
    const bad = w.write('org-bad', 'c', 'batch-bad-01', [nodeStatus(0, 2, { replicas: Number.NaN })]);
    await expect(bad).rejects.toThrow(/samples\[0\] \(node_status\): replicas must be a non-negative number/);
    await expect(good).resolves.toEqual({ accepted: 1, duplicate: false });
    await w.close();
  });
});

describe('idempotency', () => {
  it('inserts a batch id once, also across a new writer instance (restart)', async () => {
    const batch = [nodeStatus(1, 0), nodeStatus(1, 1), nodeStatus(1, 2)];
    const w1 = createWriter(ch);
    const [a, b] = await Promise.all([
      w1.write('org-dup', 'c', 'batch-dup-1', batch),
      w1.write('org-dup', 'c', 'batch-dup-1', batch),
    ]);
    expect([a, b]).toEqual([
      { accepted: 3, duplicate: false },
      { accepted: 3, duplicate: true },
    ]);
    expect(await w1.write('org-dup', 'c', 'batch-dup-1', batch)).toEqual({ accepted: 3, duplicate: true });
    await w1.close();

    const w2 = createWriter(ch);
    expect(await w2.write('org-dup', 'c', 'batch-dup-1', batch)).toEqual({ accepted: 3, duplicate: true });
    // Same batch id in another org is a different batch.
    expect(await w2.write('org-dup-2', 'c', 'batch-dup-1', batch)).toEqual({ accepted: 3, duplicate: false });
    await w2.close();
    expect(await count('node_status', 'org-dup')).toBe(3);
    expect(await count('node_status', 'org-dup-2')).toBe(3);
  });

  it('writeEncoded encodes a batch id once; an encode failure fails that write alone', async () => {
    const w = createWriter(ch, { maxDelayMs: 30 });
    let calls = 0;
    const encode = () => {
      calls++;
      return encodeSamplesToBytes('org-enc', 'c', [nodeStatus(2, 0), nodeStatus(2, 1)]);
    };
    const [a, b, bad] = await Promise.allSettled([
      w.writeEncoded('org-enc', 'batch-enc-1', 2, encode),
      w.writeEncoded('org-enc', 'batch-enc-1', 2, encode),
      w.writeEncoded('org-enc', 'batch-enc-2', 1, async () => {
        throw new Error('worker gone');
      }),
    ]);
    expect(a).toEqual({ status: 'fulfilled', value: { accepted: 2, duplicate: false } });
    expect(b).toEqual({ status: 'fulfilled', value: { accepted: 2, duplicate: true } });
    expect(bad).toMatchObject({ status: 'rejected', reason: { message: 'worker gone' } });
    expect(calls).toBe(1);
    // The failed id was not remembered: a retry is stored.
    await expect(w.writeEncoded('org-enc', 'batch-enc-2', 2, encode)).resolves.toEqual({
      accepted: 2,
      duplicate: false,
    });
    await w.close();
    expect(await count('node_status', 'org-enc')).toBe(4);
  });
});

/** The test client, counting its inserts. */
function countingInserts() {
  let n = 0;
  const client = new Proxy(ch.client, {
    get(target, prop, recv) {
      if (prop === 'insert') {
        return (...args: Parameters<TChClient['insert']>) => {
          n++;
          return target.insert(...args);
        };
      }
      const v = Reflect.get(target, prop, recv);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { client, inserts: () => n };
}

describe('coalescing', () => {
  it('coalesces concurrent writes into one insert per table and resolves them all', async () => {
    const { client: counting, inserts } = countingInserts();
    const w = createWriter(counting, { maxDelayMs: 50 });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        w.write('org-co', 'c', `batch-co-${String(i).padStart(3, '0')}`, [
          nodeStatus(2, i),
          nodeStatus(2, i + 100),
        ]),
      ),
    );
    expect(results.every((r) => r.accepted === 2 && !r.duplicate)).toBe(true);
    // one node_status insert + one ingest_batches insert
    expect(inserts()).toBe(2);
    expect(await count('node_status', 'org-co')).toBe(80);
    expect(await count('ingest_batches', 'org-co')).toBe(40);
    await w.close();
  });

  it('spaces rounds by minRoundMs after a busy round, except for late batches; flush and close do not wait', async () => {
    const { client: counting, inserts } = countingInserts();
    const w = createWriter(counting, { maxDelayMs: 0, minRoundMs: 60_000, busyBatches: 3 });
    // Fresh samples (now); nodeStatus's own times are two hours old: a batch that late is not held back.
    const batch = (i: number, late = false) =>
      w.write('org-round', 'c', `batch-round-${i}`, [nodeStatus(4, i, late ? {} : { ts: Date.now() + i })]);
    // One client, batch after batch: rounds of one batch are never held back.
    for (let i = 0; i < 3; i++) await batch(i);
    expect(inserts()).toBe(6); // node_status + ingest_batches per round
    // A busy round (3 batches at once) holds the next one back...
    await Promise.all([batch(3), batch(4), batch(5)]);
    expect(inserts()).toBe(8);
    const t0 = Date.now();
    let done = 0;
    const later = [batch(6), batch(7)].map((p) => p.then(() => done++));
    await new Promise((r) => setTimeout(r, 300));
    expect(done).toBe(0);
    expect(inserts()).toBe(8);
    // ...until a late batch comes (an agent catching up): it goes at once, with the fresh ones waiting.
    await batch(8, true);
    await Promise.all(later);
    expect(inserts()).toBe(10);
    // That round was busy too: a flush writes the batch it holds back at once.
    const waiting = batch(9);
    await new Promise((r) => setTimeout(r, 100));
    expect(inserts()).toBe(10);
    await w.flush();
    await waiting;
    expect(inserts()).toBe(12);
    // Close does not wait either.
    await Promise.all([batch(10), batch(11), batch(12)]);
    const last = batch(13);
    await w.close();
    expect((await last).accepted).toBe(1);
    expect(inserts()).toBe(16);
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(await count('node_status', 'org-round')).toBe(14);
  });

  it('flushes at maxRows without waiting for the timer', async () => {
    const w = createWriter(ch, { maxDelayMs: 60_000, maxRows: 5 });
    const t0 = Date.now();
    const r = await w.write(
      'org-max',
      'c',
      'batch-max-1',
      Array.from({ length: 5 }, (_, i) => nodeStatus(3, i)),
    );
    expect(r.accepted).toBe(5);
    expect(Date.now() - t0).toBeLessThan(10_000);
    await w.close();
  });
});

describe('failures', () => {
  it('rejects every caller of a failed flush and records nothing', async () => {
    const { createChdbConnection } = await import('chdb/connection');
    const broken = createClient({
      connection: createChdbConnection({ path: dir }) as unknown as NonNullable<
        ClickHouseClientConfigOptions['connection']
      >,
    });
    await broken.close();
    const w = createWriter(broken, { maxDelayMs: 20 });
    const calls = [0, 1, 2].map((i) => w.write('org-fail', 'c', `batch-fail-${i}`, [nodeStatus(4, i)]));
    for (const c of calls) await expect(c).rejects.toThrow(/closed/);
    expect(await count('ingest_batches', 'org-fail')).toBe(0);

    // The agent retries with the same ids against a healthy writer: accepted, not duplicates.
    const ok = createWriter(ch);
    expect(await ok.write('org-fail', 'c', 'batch-fail-0', [nodeStatus(4, 0)])).toEqual({
      accepted: 1,
      duplicate: false,
    });
    await ok.close();
    await expect(w.close()).resolves.toBeUndefined();
    await expect(w.write('org-fail', 'c', 'batch-fail-9', [])).rejects.toThrow(/writer is closed/);
  });

  it('isolates a batch that ClickHouse rejects: the batches coalesced with it are stored', async () => {
    const w = createWriter(ch, { maxDelayMs: 30 });
    const good = (i: number) => () => encodeSamplesToBytes('org-poison', 'c', [nodeStatus(5, i)]);
    // Encoded bytes ClickHouse cannot parse (a row with two fields for a 30-column table).
    const poison = () => ({ bodies: { node_status: new TextEncoder().encode('org-poison\tc\n') }, rows: 1 });
    const [a, bad, b] = await Promise.allSettled([
      w.writeEncoded('org-poison', 'batch-good-a', 1, good(0)),
      w.writeEncoded('org-poison', 'batch-poison', 1, poison),
      w.writeEncoded('org-poison', 'batch-good-b', 1, good(1)),
    ]);
    expect(a).toEqual({ status: 'fulfilled', value: { accepted: 1, duplicate: false } });
    expect(b).toEqual({ status: 'fulfilled', value: { accepted: 1, duplicate: false } });
    expect(bad).toMatchObject({ status: 'rejected', reason: { message: /insert into node_status failed/ } });
    await w.close();
    expect(await count('node_status', 'org-poison')).toBe(2);
    // The ledger is written before the rows ("may have rows"), so the rejected batch is in it too;
    // its retry is re-derived and rejected again, and the good batches stay stored once.
    const ids = await rows<{ batch_id: string }>(
      `SELECT batch_id FROM ingest_batches WHERE org_id = 'org-poison' ORDER BY batch_id`,
    );
    expect(ids.map((r) => r.batch_id)).toEqual(['batch-good-a', 'batch-good-b', 'batch-poison']);
    const w2 = createWriter(ch);
    await expect(w2.writeEncoded('org-poison', 'batch-poison', 1, poison)).rejects.toThrow(
      /insert into node_status failed/,
    );
    await w2.close();
    expect(await count('node_status', 'org-poison')).toBe(2);
  });
});

describe('crash window', () => {
  const cgroup = (i: number): TSample =>
    ({
      kind: 'cgroup_usage', ts: T0 + i * 10_000, host: `h${i % 2}`, node_id: 1, cgroup: `/crdb-${i % 3}`, version: 2,
      cpu_usage_usec: 100 + i, cpu_nr_periods: 1, cpu_nr_throttled: 0, cpu_throttled_usec: 0, cpu_quota_usec: null,
      cpu_period_usec: 100000, cpu_weight: null, cpu_shares: null, mem_current: 1, mem_max: null, mem_swap_current: 0,
      mem_swap_max: null, mem_anon: 0, mem_file: 0, io: [], psi: null,
    }) as TSample; // prettier-ignore
  // What an agent posts each second: 1 node_status + 3 cgroup_usage samples (distinct keys per batch).
  const batch = (n: number): TSample[] => [
    nodeStatus(6, n),
    cgroup(n * 3),
    cgroup(n * 3 + 1),
    cgroup(n * 3 + 2),
  ];
  const perBatch = async (table: string) =>
    rows<{ n: number }>(
      `SELECT count() AS n FROM ${table} WHERE org_id = 'org-crash' GROUP BY ts ORDER BY ts`,
    );

  it('a retry after a write died between two tables stores every row exactly once', async () => {
    // The "crash": cgroup_usage is gone, so the coalesced write inserts node_status and then fails
    // for real on its second table, as a process killed between the two inserts would leave it.
    await ch.client.command({ query: 'DETACH TABLE cgroup_usage' });
    const w1 = createWriter(ch, { maxDelayMs: 30 });
    const first = await Promise.allSettled([
      w1.write('org-crash', 'c', 'batch-crash-a', batch(0)),
      w1.write('org-crash', 'c', 'batch-crash-b', batch(1)),
    ]);
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await ch.client.command({ query: 'ATTACH TABLE cgroup_usage' });
    expect(await count('node_status', 'org-crash')).toBe(2);
    expect(await count('cgroup_usage', 'org-crash')).toBe(0);

    // The agents retry with the same ids against a restarted writer; a retried batch coalesces with
    // a different batch (c) than the one it was written with (b).
    const w2 = createWriter(ch, { maxDelayMs: 30 });
    const retry = await Promise.all([
      w2.write('org-crash', 'c', 'batch-crash-a', batch(0)),
      w2.write('org-crash', 'c', 'batch-crash-c', batch(2)),
    ]);
    expect(retry).toEqual([
      { accepted: 4, duplicate: false },
      { accepted: 4, duplicate: false },
    ]);
    expect(await w2.write('org-crash', 'c', 'batch-crash-b', batch(1))).toEqual({
      accepted: 4,
      duplicate: false,
    });
    await w2.close();
    // Another retry (the 202 got lost) changes nothing.
    const w3 = createWriter(ch);
    expect(await w3.write('org-crash', 'c', 'batch-crash-a', batch(0))).toEqual({
      accepted: 4,
      duplicate: true,
    });
    await w3.close();

    // Each sample exactly once: 3 node_status rows, 9 cgroup_usage rows, one per timestamp.
    expect(await perBatch('node_status')).toEqual([{ n: 1 }, { n: 1 }, { n: 1 }]);
    expect(await perBatch('cgroup_usage')).toEqual(Array.from({ length: 9 }, () => ({ n: 1 })));
    // The rollups fed by materialized views count each sample once too.
    const [r] = await rows<{ n: number }>(
      `SELECT sum(samples) AS n FROM node_status_1m WHERE org_id = 'org-crash'`,
    );
    expect(Number(r.n)).toBe(3);
  });
});

describe('metrics', () => {
  const CONTROL = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('') + '\x7f';
  const metric = (i: number, labels: Record<string, string>): TSample => ({
    kind: 'metric', ts: T0 + i * 10_000, node_id: i % 2 === 0 ? 1 : null, host: HOSTILE[i % HOSTILE.length],
    name: 'sql_select_count', type: 'counter', labels, value: 100 + i * 0.5,
  }); // prettier-ignore
  const hostileLabels = (i: number) => ({ z: HOSTILE[i % HOSTILE.length], a: CONTROL, store: String(i) });

  it('stores series with hostile label values, labels sorted by name', async () => {
    const w = createWriter(ch);
    const samples = [metric(0, hostileLabels(0)), metric(1, { le: '+Inf' }), metric(2, {})];
    expect(await w.write('org-m', 'c', 'batch-metrics-rt', samples)).toEqual({
      accepted: 3,
      duplicate: false,
    });
    await w.close();
    const got = await rows<{ node_id: number; host: string; keys: string[]; labels: Record<string, string> }>(
      `SELECT node_id, host, mapKeys(labels) AS keys, labels, type, value FROM metrics
       WHERE org_id = 'org-m' ORDER BY value`,
    );
    expect(got).toEqual([
      { node_id: 1, host: HOSTILE[0], keys: ['a', 'store', 'z'], labels: hostileLabels(0), type: 'counter', value: 100 },
      { node_id: 0, host: HOSTILE[1], keys: ['le'], labels: { le: '+Inf' }, type: 'counter', value: 100.5 },
      { node_id: 1, host: HOSTILE[2], keys: [], labels: {}, type: 'counter', value: 101 },
    ]); // prettier-ignore
  });

  it('a retry after a write died before the metrics insert stores every series exactly once', async () => {
    // metrics is the last table of a batch: node_status goes in, then the "crash".
    const batch = (n: number): TSample[] => [
      nodeStatus(7, n),
      ...Array.from({ length: 6 }, (_, k) => metric(n * 6 + k, hostileLabels(k))),
    ];
    await ch.client.command({ query: 'DETACH TABLE metrics' });
    const w1 = createWriter(ch);
    await expect(w1.write('org-mc', 'c', 'batch-mc-a', batch(0))).rejects.toThrow(/metrics/);
    await ch.client.command({ query: 'ATTACH TABLE metrics' });
    expect(await count('node_status', 'org-mc')).toBe(1);
    expect(await count('metrics', 'org-mc')).toBe(0);

    const w2 = createWriter(ch);
    expect(await w2.write('org-mc', 'c', 'batch-mc-a', batch(0))).toEqual({ accepted: 7, duplicate: false });
    expect(await w2.write('org-mc', 'c', 'batch-mc-b', batch(1))).toEqual({ accepted: 7, duplicate: false });
    await w2.close();
    // The 202 got lost: both are retried against a new writer; nothing is added.
    const w3 = createWriter(ch);
    expect(await w3.write('org-mc', 'c', 'batch-mc-a', batch(0))).toEqual({ accepted: 7, duplicate: true });
    expect(await w3.write('org-mc', 'c', 'batch-mc-b', batch(1))).toEqual({ accepted: 7, duplicate: true });
    await w3.close();
    expect(await count('node_status', 'org-mc')).toBe(2);
    expect(await count('metrics', 'org-mc')).toBe(12);
    const [r] = await rows<{ n: number }>(`SELECT sum(samples) AS n FROM metrics_1m WHERE org_id = 'org-mc'`);
    expect(Number(r.n)).toBe(12);
  });
});
