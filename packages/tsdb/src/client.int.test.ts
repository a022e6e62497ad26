import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TTsdb } from './client';
import { openTempClickHouse } from './testing';

let ch: TTsdb;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ ch, cleanup } = await openTempClickHouse());
});
afterAll(() => cleanup());

/** Nice values of this process's threads right now (Linux). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').flatMap((t) => {
    try {
      const s = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
      return [Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return [];
    }
  });
}

describe('chDB parameters', () => {
  it('round-trip hostile strings exactly (bound as literals)', async () => {
    const values = [
      "x' OR 1=1 --",
      'a\\',
      "\\'",
      '\\n real\nnewline\ttab',
      "'; DROP TABLE pool_probe; --",
      'ünï😀',
      '',
    ];
    for (const s of values) {
      const rs = await ch.client.query({
        query: 'SELECT {s:String} AS s, length({s:String}) AS n, {a:Array(String)} AS a',
        query_params: { s, a: [s, 'z'] },
        format: 'JSONEachRow',
      });
      expect(await rs.json()).toEqual([{ s, n: Buffer.byteLength(s), a: [s, 'z'] }]);
    }
  });

  it('a short parameterised read does not wait for a long one (chdb’s binder ran them one at a time)', async () => {
    const order: string[] = [];
    const slow = ch.client
      .query({
        query:
          'SELECT count() AS c FROM numbers({n:UInt64}) WHERE sipHash64(number) % 7 = 1 SETTINGS max_threads = 1',
        query_params: { n: 40_000_000 },
        format: 'JSONEachRow',
      })
      .then(() => order.push('slow'));
    await new Promise((r) => setTimeout(r, 50));
    const fast = ch.client
      .query({ query: 'SELECT {x:UInt8} AS x', query_params: { x: 7 }, format: 'JSONEachRow' })
      .then(() => order.push('fast'));
    await Promise.all([slow, fast]);
    expect(order).toEqual(['fast', 'slow']);
  });
});

describe('selectJson', () => {
  it('returns the rows as JSONEachRow bytes in a transferable buffer', async () => {
    const s = "it's \\ here";
    const json = await ch.selectJson('SELECT {s:String} AS s, number AS n FROM numbers(2)', { s });
    expect(json.byteOffset).toBe(0);
    expect(json.byteLength).toBe(json.buffer.byteLength);
    const rows = new TextDecoder()
      .decode(json)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(rows).toEqual([
      { s, n: 0 },
      { s, n: 1 },
    ]);
  });

  it('applies its settings to its own query only (a pooled connection keeps what SET changed)', async () => {
    const q = "SELECT getSetting('os_threads_nice_value_query') AS n";
    const nice = async () =>
      ((await (await ch.client.query({ query: q, format: 'JSONEachRow' })).json()) as { n: number }[])[0].n;
    // Every pooled connection runs a background read, then plain reads.
    await Promise.all([1, 2, 3, 4, 5, 6].map(() => ch.selectJson(q, {}, ch.background)));
    expect(new TextDecoder().decode(await ch.selectJson(q, {}, ch.background)).trim()).toBe('{"n":5}');
    await Promise.all(
      [1, 2, 3, 4, 5, 6].map(() =>
        ch.client.query({ query: q, format: 'JSONEachRow', clickhouse_settings: ch.background }),
      ),
    );
    expect(await Promise.all([1, 2, 3, 4, 5, 6].map(nice))).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe('chDB yields the web process’s cores to reads', () => {
  it('starts the engine with background merges at nice 10', async () => {
    const rs = await ch.client.query({
      query: "SELECT value FROM system.server_settings WHERE name = 'os_threads_nice_value_merge_mutate'",
      format: 'JSONEachRow',
    });
    expect(await rs.json()).toEqual([{ value: '10' }]);
  });

  it('runs ingest inserts at nice 5', async () => {
    expect(ch.background).toEqual({
      os_threads_nice_value_query: 5,
      os_threads_nice_value_materialized_view: 5,
    });
    await ch.client.command({
      query: 'CREATE TABLE nice_probe (a UInt64, s String) ENGINE = MergeTree ORDER BY a',
    });
    const rows = Array.from({ length: 400_000 }, (_, i) => `${i}\tvalue-${i}-${'x'.repeat(40)}\n`).join('');
    const seen = new Set<number>();
    let done = false;
    const insert = ch.insertTsv('nice_probe', ['a', 's'], Buffer.from(rows)).finally(() => (done = true));
    while (!done) {
      for (const n of threadNices()) seen.add(n);
      await new Promise((r) => setTimeout(r, 2));
    }
    await insert;
    expect(seen).toContain(5);
  });
});

describe('chDB memory', () => {
  /** chDB's jemalloc resident bytes and the threads its global pool holds. */
  const usage = async () => {
    const [stats] = await selectAll<{ stats: string }>('SELECT stats FROM system.jemalloc_stats');
    const [threads] = await selectAll<{ value: string }>(
      "SELECT value FROM system.metrics WHERE metric = 'GlobalThread'",
    );
    return { resident: Number(/resident: (\d+)/.exec(stats.stats)?.[1]), threads: Number(threads.value) };
  };
  const selectAll = async <T>(query: string) =>
    (await (await ch.client.query({ query, format: 'JSONEachRow' })).json()) as T[];

  it('gives freed memory back to the OS within seconds and keeps few idle threads', async () => {
    // ~600 MB held by one query; then three at once (one per pooled connection) on ~24 threads each.
    await ch.client.command({
      query: 'SELECT groupArray(number) FROM numbers(20000000) GROUP BY number % 10 FORMAT Null',
    });
    const t0 = Date.now();
    await Promise.all(
      [1, 2, 3].map(() =>
        ch.client.command({
          query:
            'SELECT count() FROM numbers_mt(100000000) WHERE number % 3 = 1 SETTINGS max_threads = 48 FORMAT Null',
        }),
      ),
    );
    const seen: number[] = [];
    let u = await usage();
    // jemalloc alone returns freed pages over 5 s (its dirty decay); the purge does it within 2 s.
    while (Date.now() - t0 < 3_000) {
      seen.push(Math.round(u.resident / 2 ** 20));
      await new Promise((r) => setTimeout(r, 200));
      u = await usage();
    }
    seen.push(Math.round(u.resident / 2 ** 20));
    expect(u.threads, 'threads the pool holds').toBeLessThanOrEqual(40);
    expect(Math.min(...seen.slice(-3)), `resident MB: ${seen.join(' ')}`).toBeLessThan(100);
  });

  it('keeps no freed blocks in per-thread caches (JE_MALLOC_CONF)', async () => {
    await ch.client.command({
      query:
        'SELECT uniqExact(number) FROM numbers_mt(2000000) GROUP BY number % 7 SETTINGS max_threads = 16 FORMAT Null',
    });
    const [{ stats }] = await selectAll<{ stats: string }>('SELECT stats FROM system.jemalloc_stats');
    expect(stats).toContain('opt.tcache: false');
    expect(Number(/tcache_bytes:\s+(\d+)/.exec(stats)?.[1])).toBe(0);
  });
});
