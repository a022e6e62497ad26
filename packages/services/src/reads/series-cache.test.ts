import { describe, expect, it } from 'vitest';
import { blockList, createSeriesCache, pointList, readSeries, type TSeriesRead } from './series-cache';

interface TPt {
  ts: number;
  s: string;
  v: number;
}
const MIN = 60_000;

/** Two series of one point per `step` in [from, to): per series in time order (as ClickHouse returns them). */
function source(step: number, bucketed = false) {
  const calls: [number, number][] = [];
  let bump = 0;
  const fetch = async (from: number, to: number): Promise<TPt[]> => {
    calls.push([from, to]);
    const out: TPt[] = [];
    const first = bucketed ? Math.floor(from / step) * step : Math.ceil(from / step) * step;
    for (const s of ['a', 'b'])
      for (let t = first; t < to; t += step)
        out.push({ ts: t, s, v: t / step + (s === 'b' ? 1000 : 0) + bump });
    return out;
  };
  return { calls, fetch, change: () => bump++ };
}

const read = (
  src: ReturnType<typeof source>,
  from: number,
  to: number,
  bucketMs = 0,
): TSeriesRead<TPt[]> => ({
  orgId: 'o',
  clusterId: 'c',
  key: 'k',
  from,
  to,
  bucketMs,
  fromBucket: bucketMs > 0,
  points: pointList((p: TPt) => p.ts),
  pointBytes: 100,
  fetch: src.fetch,
});

describe('series cache', () => {
  it('serves settled points from memory and reads only the rest, with what a full read gives', async () => {
    let now = 1_000 * MIN;
    const cache = createSeriesCache({ maxBytes: 1 << 20, freshnessMs: MIN, now: () => now });
    const src = source(10_000);
    const first = await cache.read(read(src, now - 60 * MIN, now));
    expect(first).toEqual(await src.fetch(now - 60 * MIN, now));
    now += 5 * MIN;
    src.calls.length = 0;
    const second = await cache.read(read(src, now - 60 * MIN, now));
    // Only from the first read's freshness edge (now - 5 min - 1 min) on.
    expect(src.calls).toEqual([[now - 6 * MIN, now]]);
    const full = await src.fetch(now - 60 * MIN, now);
    const bySeries = (x: TPt[]) => [...x].sort((p, q) => p.s.localeCompare(q.s) || p.ts - q.ts);
    expect(bySeries(second)).toEqual(bySeries(full));
    expect(cache.stats).toMatchObject({ hits: 1, misses: 1, entries: 1 });
  });

  it('aligns the settled edge to rollup buckets and returns the bucket that holds `from`', async () => {
    let now = 1_000 * MIN + 7 * MIN + 13_000;
    const step = 5 * MIN;
    const cache = createSeriesCache({ maxBytes: 1 << 20, freshnessMs: MIN, now: () => now });
    const src = source(step, true);
    await cache.read(read(src, now - 600 * MIN, now, step));
    now += 3 * MIN;
    src.calls.length = 0;
    const from = now - 600 * MIN;
    const got = await cache.read(read(src, from, now, step));
    const edge = src.calls[0][0];
    expect(edge % step).toBe(0);
    expect(edge).toBeLessThanOrEqual(now - 3 * MIN - MIN);
    const want = await src.fetch(from, now);
    expect(got.length).toBe(want.length);
    expect(new Set(got.map((p) => `${p.s}${p.ts}:${p.v}`))).toEqual(
      new Set(want.map((p) => `${p.s}${p.ts}:${p.v}`)),
    );
  });

  it('reads everything again after invalidate, and a read racing it stores nothing', async () => {
    const now = 1_000 * MIN;
    const cache = createSeriesCache({ maxBytes: 1 << 20, freshnessMs: MIN, now: () => now });
    const src = source(10_000);
    await cache.read(read(src, now - 60 * MIN, now));
    src.change();
    cache.invalidate('o', 'c');
    src.calls.length = 0;
    const after = await cache.read(read(src, now - 60 * MIN, now));
    expect(src.calls).toEqual([[now - 60 * MIN, now]]);
    expect(after[0].v).toBe((now - 60 * MIN) / 10_000 + 1);

    // Invalidated while its fetch runs: the (possibly stale) answer is returned but not kept.
    const racing = createSeriesCache({ maxBytes: 1 << 20, freshnessMs: MIN, now: () => now });
    await racing.read({
      ...read(src, now - 60 * MIN, now),
      fetch: async (f, t) => {
        racing.invalidate('o', 'c');
        return src.fetch(f, t);
      },
    });
    expect(racing.stats.entries).toBe(0);
    // Another cluster's entries stay.
    await cache.read({ ...read(src, now - 60 * MIN, now), clusterId: 'other' });
    cache.invalidate('o', 'c');
    expect(cache.stats.entries).toBe(1);
  });

  it('keeps no more than maxBytes, and reads straight through without a cache', async () => {
    const now = 1_000 * MIN;
    const cache = createSeriesCache({ maxBytes: 50_000, freshnessMs: MIN, now: () => now });
    const src = source(10_000);
    // 720 points × 100 bytes: larger than the whole cache.
    await cache.read(read(src, now - 60 * MIN, now));
    expect(cache.stats.entries).toBe(0);
    src.calls.length = 0;
    expect(await readSeries(undefined, read(src, now - MIN, now))).toHaveLength(12);
    expect(src.calls).toHaveLength(1);
    expect(cache.settled(now - 2 * MIN)).toBe(true);
    expect(cache.settled(now - 30_000)).toBe(false);
  });

  it('reuses the newest part while no change notice came, and reads it again after one', async () => {
    let now = 1_000 * MIN;
    const cache = createSeriesCache({ maxBytes: 1 << 20, freshnessMs: MIN, quietMs: 15_000, now: () => now });
    const src = source(10_000);
    // Samples exist up to `stored`; each store comes with a change notice.
    let stored = now;
    const have = (from: number, to: number) => src.fetch(from, Math.min(to, stored + 1));
    const win = () => ({ ...read(src, now - 60 * MIN, now + 1), fetch: have });
    const store = () => {
      stored = now;
      cache.changed('o', 'c');
    };
    // Until notices are heard, every read asks for the newest part.
    await cache.read(win());
    now += 1_000;
    src.calls.length = 0;
    await cache.read(win());
    expect(src.calls).toEqual([[now - 1_000 - MIN, stored + 1]]);

    cache.notices(true);
    now += 1_000;
    await cache.read(win());
    src.calls.length = 0;
    now += 9_000;
    const quiet = await cache.read(win());
    expect(src.calls).toEqual([]);
    const bySeries = (x: TPt[]) => [...x].sort((p, q) => p.s.localeCompare(q.s) || p.ts - q.ts);
    expect(bySeries(quiet)).toEqual(bySeries(await have(now - 60 * MIN, now + 1)));
    expect(cache.stats.quiet).toBe(1);

    // A sample stored (this instance's write or another's notice): the newest part is read again, with it.
    store();
    now += 1_000;
    src.calls.length = 0;
    const after = await cache.read(win());
    expect(src.calls).toHaveLength(1);
    expect(bySeries(after)).toEqual(bySeries(await have(now - 60 * MIN, now + 1)));
    expect(Math.max(...after.map((p) => p.ts))).toBeGreaterThan(1_000 * MIN);
    // Another cluster's notice does not touch this one; quietMs bounds a reuse; losing notices stops it.
    now += 1_000;
    cache.changed('o', 'other');
    src.calls.length = 0;
    await cache.read(win());
    expect(src.calls).toEqual([]);
    now += 15_000;
    await cache.read(win());
    expect(src.calls).toHaveLength(1);
    now += 1_000;
    cache.notices(false);
    await cache.read(win());
    expect(src.calls).toHaveLength(2);
  });

  it('does not reuse the newest part when a change came during its read', async () => {
    let now = 1_000 * MIN;
    const cache = createSeriesCache({ maxBytes: 1 << 20, freshnessMs: MIN, now: () => now });
    cache.notices(true);
    const src = source(10_000);
    now += 1_000;
    await cache.read({
      ...read(src, now - 60 * MIN, now),
      fetch: async (f, t) => {
        const out = await src.fetch(f, t);
        now += 5;
        cache.changed('o', 'c');
        return out;
      },
    });
    now += 1_000;
    src.calls.length = 0;
    await cache.read(read(src, now - 60 * MIN, now));
    expect(src.calls).toHaveLength(1);
  });

  it('shares an answer about the newest data until the next notice for its cluster or org', async () => {
    let now = 1_000 * MIN;
    const cache = createSeriesCache({ maxBytes: 1 << 20, quietMs: 15_000, now: () => now });
    let calls = 0;
    const fetch = async () => ++calls;
    // Without notices: every call reads.
    expect(await cache.latest('o', 'c', 'k', fetch)).toBe(1);
    expect(await cache.latest('o', 'c', 'k', fetch)).toBe(2);
    cache.notices(true);
    now += 1;
    // Concurrent calls share one read.
    const [a, b] = await Promise.all([
      cache.latest('o', 'c', 'k', fetch),
      cache.latest('o', 'c', 'k', fetch),
    ]);
    expect([a, b]).toEqual([3, 3]);
    now += 1_000;
    expect(await cache.latest('o', 'c', 'k', fetch)).toBe(3);
    expect(await cache.latest('o', null, 'k', fetch)).toBe(4);
    expect(await cache.latest('o2', null, 'k', fetch)).toBe(5);
    now += 1_000;
    cache.changed('o', 'c2');
    now += 1;
    // The org-wide answer saw a change in one of its clusters; the other cluster's and org's did not.
    expect(await cache.latest('o', null, 'k', fetch)).toBe(6);
    expect(await cache.latest('o', 'c', 'k', fetch)).toBe(3);
    expect(await cache.latest('o2', null, 'k', fetch)).toBe(5);
    cache.changed('o', 'c');
    now += 1;
    expect(await cache.latest('o', 'c', 'k', fetch)).toBe(7);
    // A failed read is not kept.
    const failing = cache.latest('o', 'c', 'f', () => Promise.reject(new Error('down')));
    await expect(failing).rejects.toThrow('down');
    expect(await cache.latest('o', 'c', 'f', fetch)).toBe(8);
    // quietMs bounds the reuse.
    now += 15_000;
    expect(await cache.latest('o', 'c', 'k', fetch)).toBe(9);
    // An answer about a window that ended before the last notice (it may lack that sample) is not reused.
    const to = now;
    now += 10;
    cache.changed('o', 'c');
    now += 10;
    expect(await cache.latest('o', 'c', 'w', fetch, { to })).toBe(10);
    now += 10;
    expect(await cache.latest('o', 'c', 'w', fetch, { to })).toBe(11);
    expect(await cache.latest('o', 'c', 'w', fetch, { to: now })).toBe(12);
    now += 10;
    expect(await cache.latest('o', 'c', 'w', fetch, { to: now })).toBe(12);
  });

  it('keeps an answer that names its sample kinds through notices of other kinds', async () => {
    let now = 1_000 * MIN;
    const cache = createSeriesCache({ maxBytes: 1 << 20, quietMs: 15_000, now: () => now });
    cache.notices(true);
    let calls = 0;
    const fetch = async () => ++calls;
    const metric = ['metric'];
    now += 1;
    expect(await cache.latest('o', 'c', 'm', fetch, { kinds: metric })).toBe(1);
    expect(await cache.latest('o', null, 'm', fetch, { kinds: metric })).toBe(2);
    expect(await cache.latest('o', 'c', 'any', fetch)).toBe(3);
    now += 10;
    cache.changed('o', 'c', ['node_status', 'cgroup_usage']);
    now += 10;
    // Node and cgroup samples: the metric answers stand; an answer about any kind does not.
    expect(await cache.latest('o', 'c', 'm', fetch, { kinds: metric })).toBe(1);
    expect(await cache.latest('o', null, 'm', fetch, { kinds: metric })).toBe(2);
    expect(await cache.latest('o', 'c', 'any', fetch)).toBe(4);
    cache.changed('o', 'c', ['node_status', 'metric']);
    now += 10;
    expect(await cache.latest('o', 'c', 'm', fetch, { kinds: metric })).toBe(5);
    expect(await cache.latest('o', null, 'm', fetch, { kinds: metric })).toBe(6);
    // A notice of unknown kinds (late samples, the demo) counts for every kind.
    cache.changed('o', 'c');
    now += 10;
    expect(await cache.latest('o', 'c', 'm', fetch, { kinds: metric })).toBe(7);
    cache.invalidate('o', 'c');
    now += 10;
    expect(await cache.latest('o', 'c', 'm', fetch, { kinds: metric })).toBe(8);
    // Another cluster's metrics: this cluster's answer stands, the org's does not.
    cache.changed('o', 'c2', metric);
    now += 10;
    expect(await cache.latest('o', 'c', 'm', fetch, { kinds: metric })).toBe(8);
    expect(await cache.latest('o', null, 'm', fetch, { kinds: metric })).toBe(9);
  });

  it('reads an answer pages keep asking for again right after a notice (refresh-ahead), and only that', async () => {
    let now = 1_000 * MIN;
    const cache = createSeriesCache({ maxBytes: 1 << 20, now: () => now, refreshMs: 0, hotMs: 5_000 });
    /** A change notice for cluster c after `before` ms, then `after` ms and the refresh timer's turn. */
    const notice = async (before = 10, after = 10) => {
      now += before;
      cache.changed('o', 'c');
      now += after;
      await new Promise((r) => setTimeout(r, 20));
    };
    cache.notices(true);
    now += 1;
    let calls = 0;
    const fetch = async () => ++calls;
    expect(await cache.latest('o', 'c', 'hot', fetch)).toBe(1);
    now += 10;
    expect(await cache.latest('o', 'c', 'hot', fetch)).toBe(1); // reused: a page keeps asking
    expect(await cache.latest('o', 'c', 'cold', fetch)).toBe(2); // asked once
    expect(await cache.latest('o', null, 'org', fetch)).toBe(3);
    expect(await cache.latest('o', null, 'org', fetch)).toBe(3);
    expect(await cache.latest('o2', null, 'org', fetch)).toBe(4);
    expect(await cache.latest('o2', null, 'org', fetch)).toBe(4);
    await notice();
    // The hot answers of the cluster and of its org were read again; the cold one and the other org's not.
    expect(calls).toBe(6);
    expect(await cache.latest('o', 'c', 'hot', fetch)).toBeGreaterThan(4);
    expect(await cache.latest('o', null, 'org', fetch)).toBeGreaterThan(4);
    expect(await cache.latest('o2', null, 'org', fetch)).toBe(4);
    expect(calls).toBe(6);
    // Asked for again after a notice ended its answer: a page that follows notices (one viewer is enough).
    expect(await cache.latest('o', 'c', 'cold', fetch)).toBe(7);
    // Asked for again since (the cluster's and the org's), or after a notice (cold): all read again.
    await notice();
    expect(calls).toBe(10);
    // Not asked for since their refresh: not read again.
    await notice();
    expect(calls).toBe(10);
    // Asked for, but longer ago than hotMs: not read again either.
    expect(await cache.latest('o', 'c', 'hot', fetch)).toBe(11);
    expect(await cache.latest('o', 'c', 'hot', fetch)).toBe(11);
    await notice(5_000);
    expect(calls).toBe(11);
    // An answer about a window that ended before the notice cannot be reused after it: not read again.
    expect(await cache.latest('o', 'c', 'w', fetch, { to: now + 1 })).toBe(12);
    expect(await cache.latest('o', 'c', 'w', fetch, { to: now + 1 })).toBe(12);
    await notice();
    expect(calls).toBe(12);
    // A failed refresh is not kept: the next request reads.
    let fail = false;
    const flaky = async () => (fail ? Promise.reject(new Error('down')) : ++calls);
    expect(await cache.latest('o', 'c', 'f', flaky)).toBe(13);
    expect(await cache.latest('o', 'c', 'f', flaky)).toBe(13);
    fail = true;
    await notice(0);
    fail = false;
    expect(await cache.latest('o', 'c', 'f', flaky)).toBe(14);
    cache.close();
  });

  it("slides a live window's answer after a notice: the next request for the window ending now shares it", async () => {
    let now = 1_000 * MIN;
    const cache = createSeriesCache({ maxBytes: 1 << 20, now: () => now, refreshMs: 0, hotMs: 5_000 });
    cache.notices(true);
    now += 1;
    const reads: [number, number][] = [];
    const SPAN = 60 * MIN;
    const STEP = 10_000;
    /** A page's request for the hour up to `to`, keyed by its steps (as the charts view keys it). */
    const ask = (to: number) => {
      const keyOf = (t: number) => `w|${Math.floor((t - SPAN) / STEP)}|${Math.ceil(t / STEP)}`;
      const build = (t: number) => async () => {
        reads.push([t - SPAN, t]);
        return reads.length;
      };
      return cache.latest('o', 'c', keyOf(to), build(to), {
        to,
        slide: (t) => ({ key: keyOf(t), to: t, fetch: build(t) }),
      });
    };
    const notice = async () => {
      cache.changed('o', 'c');
      now += 2;
      await new Promise((r) => setTimeout(r, 20));
    };
    expect(await ask(now)).toBe(1);
    now += 10;
    expect(await ask(now)).toBe(1); // asked again: hot
    now += 10;
    await notice();
    // Read again for the window ending at the refresh, before anyone asked.
    expect(reads).toEqual([
      [now - 22 - SPAN, now - 22],
      [now - SPAN, now],
    ]);
    now += 10;
    expect(await ask(now)).toBe(2);
    expect(reads).toHaveLength(2);
    // A window ending later than the slid answer is shared only while no sample came since.
    await notice();
    expect(reads).toHaveLength(3);
    now += 10;
    expect(await ask(now)).toBe(3);
    // Nobody asked since the last refresh: the next notice reads nothing.
    await notice();
    await notice();
    expect(reads).toHaveLength(4);
    // A window that ended long before it was read is not a live page's: not slid.
    const again = (t: number) => async () => reads.push([t - SPAN, t]);
    const past = { to: now - 10 * MIN, slide: (t: number) => ({ key: 'past', to: t, fetch: again(t) }) };
    expect(await cache.latest('o', 'c', 'past', async () => 0, past)).toBe(0);
    expect(await cache.latest('o', 'c', 'past', async () => 0, past)).toBe(0);
    await notice();
    expect(reads).toHaveLength(4);
    cache.close();
  });

  it('keeps an answer about a settled window until late samples for its cluster', async () => {
    let now = 1_000 * MIN;
    const cache = createSeriesCache({ maxBytes: 1 << 20, freshnessMs: MIN, now: () => now });
    let calls = 0;
    const fetch = async () => ({ n: ++calls });
    const old = now - 5 * MIN;
    expect(await cache.answer('o', 'c', 'run', old, fetch)).toEqual({ n: 1 });
    now += 5 * MIN;
    // Writes of newer samples do not touch it; late ones do (and ttlMs bounds it).
    cache.changed('o', 'c');
    expect(await cache.answer('o', 'c', 'run', old, fetch)).toEqual({ n: 1 });
    cache.invalidate('o', 'other');
    expect(await cache.answer('o', 'c', 'run', old, fetch)).toEqual({ n: 1 });
    cache.invalidate('o', 'c');
    expect(await cache.answer('o', 'c', 'run', old, fetch)).toEqual({ n: 2 });
    // A window that reaches past the freshness edge: not kept without notices.
    expect(await cache.answer('o', 'c', 'live', now, fetch)).toEqual({ n: 3 });
    expect(await cache.answer('o', 'c', 'live', now, fetch)).toEqual({ n: 4 });
  });
});

describe('blockList', () => {
  type TBlock = { s: string; t: number[]; v: number[] };
  const blocks = blockList<TBlock>((b) => b.s, ['t', 'v']);
  const a: TBlock = { s: 'a', t: [0, 10, 20, 30], v: [1, 2, 3, 4] };
  const b: TBlock = { s: 'b', t: [20, 30], v: [5, 6] };

  it('takes a time range of every block, the block itself when it lies inside', () => {
    expect(blocks.within([a, b], 10, 30)).toEqual([
      { s: 'a', t: [10, 20], v: [2, 3] },
      { s: 'b', t: [20], v: [5] },
    ]);
    expect(blocks.within([a, b], 0, 31)[0]).toBe(a);
    expect(blocks.within([a, b], 31, 99)).toEqual([]);
    expect(blocks.size([a, b])).toBe(6);
  });

  it("joins a later part to its series' block and adds new series, changing neither input", () => {
    const later = [
      { s: 'b', t: [40], v: [7] },
      { s: 'c', t: [40], v: [8] },
    ];
    expect(blocks.concat([a, b], later)).toEqual([a, { s: 'b', t: [20, 30, 40], v: [5, 6, 7] }, later[1]]);
    expect(b).toEqual({ s: 'b', t: [20, 30], v: [5, 6] });
  });

  it('serves settled blocks from the cache with what a full read gives', async () => {
    let now = 1_000 * MIN;
    const cache = createSeriesCache({ maxBytes: 1 << 20, freshnessMs: MIN, now: () => now });
    const calls: [number, number][] = [];
    const fetch = async (from: number, to: number): Promise<TBlock[]> => {
      calls.push([from, to]);
      return ['a', 'b'].map((s) => {
        const t: number[] = [];
        for (let x = Math.ceil(from / MIN) * MIN; x < to; x += MIN) t.push(x);
        return { s, t, v: t.map((x) => x / MIN + (s === 'b' ? 1000 : 0)) };
      });
    };
    const read = () =>
      cache.read({
        orgId: 'o',
        clusterId: 'c',
        key: 'k',
        from: now - 60 * MIN,
        to: now,
        bucketMs: 0,
        points: blocks,
        pointBytes: 20,
        fetch,
      });
    expect(await read()).toEqual(await fetch(now - 60 * MIN, now));
    now += 5 * MIN;
    calls.length = 0;
    const second = await read();
    expect(calls).toEqual([[now - 6 * MIN, now]]);
    expect(second).toEqual(await fetch(now - 60 * MIN, now));
  });
});
