import { LRUCache } from 'lru-cache';

/**
 * Settled-results cache for chart series, by extents (as Cortex/Thanos' query frontend caches results):
 * samples older than `freshnessMs` (rollups: whole buckets that ended by then) do not change once
 * written, so a repeated read of a series serves them from memory and asks ClickHouse only for the
 * rest of the window. Samples stored late for a cluster (older than the freshness edge) drop its
 * entries on every instance (`invalidate`, via the live bus); an entry lives at most `ttlMs` in any case.
 *
 * The newest part too is reused while the cluster is quiet: every instance hears each write's change
 * notice (`changed`, via the live bus), so a read of the newest data that started after the cluster's
 * last notice is still what ClickHouse would answer. That holds only while notices arrive (`notices`);
 * and a reuse is at most `quietMs` old, which bounds what a lost notice or a sample stamped ahead of the
 * server's clock can hide. Concurrent reads of the same newest data share one query.
 */
export interface TSeriesCacheOptions {
  /** Upper bound of the memory the cached points take (estimated per point). */
  maxBytes: number;
  /** Samples newer than this may still arrive (agent interval + retries). Default 60 s. */
  freshnessMs?: number;
  /** Longest life of an entry. Default 10 min. */
  ttlMs?: number;
  /** Longest reuse of a read of the newest data without a change notice in between. Default 15 s. */
  quietMs?: number;
  /**
   * How long after a change notice the answers that pages keep asking for are read again (refresh-ahead;
   * notices within it share one refresh; the app waits out the live fan-out's window, so the reads do not
   * hold up the viewers' notices). null: never. Default 5 ms.
   */
  refreshMs?: number | null;
  /** An answer asked for within this long counts as one a page keeps asking for. Default 5 s. */
  hotMs?: number;
  now?: () => number;
}

/** How the points of a read are held: a time range of them, two joined, and their count. */
export interface TPoints<C> {
  /** The points with from <= ts < to (never changes `c`; may return it). */
  within(c: C, from: number, to: number): C;
  /** `a`'s points, then `b`'s later ones (changes neither). */
  concat(a: C, b: C): C;
  size(c: C): number;
}

/** Points in one array. */
export const pointList = <T>(ts: (p: T) => number): TPoints<T[]> => ({
  within: (c, from, to) =>
    c.filter((p) => {
      const t = ts(p);
      return t >= from && t < to;
    }),
  concat: (a, b) => a.concat(b),
  size: (c) => c.length,
});

/**
 * Series in blocks of columns: `t` ascending and a column per value, one block per series (`key`), so a
 * 30-day read holds a few arrays per series instead of an object per point.
 */
export function blockList<B extends { t: number[] }>(
  key: (b: B) => string,
  cols: readonly (keyof B & string)[],
): TPoints<B[]> & { join(a: B, b: B): B } {
  const slice = (b: B, i: number, j: number): B => {
    const o = { ...b };
    for (const k of cols) (o as Record<string, unknown>)[k] = (b[k] as number[]).slice(i, j);
    return o;
  };
  // First index with t >= x (t ascending).
  const lower = (t: number[], x: number) => {
    let lo = 0;
    let hi = t.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (t[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  /** `a`'s columns followed by `b`'s (other fields from `a`). */
  const join = (a: B, b: B): B => {
    const o = { ...a };
    for (const k of cols) (o as Record<string, unknown>)[k] = (a[k] as number[]).concat(b[k] as number[]);
    return o;
  };
  return {
    join,
    within(c, from, to) {
      const out: B[] = [];
      for (const b of c) {
        const i = lower(b.t, from);
        const j = lower(b.t, to);
        if (i < j) out.push(i === 0 && j === b.t.length ? b : slice(b, i, j));
      }
      return out;
    },
    concat(a, b) {
      const out = [...a];
      const at = new Map(out.map((x, i) => [key(x), i]));
      for (const x of b) {
        const i = at.get(key(x));
        if (i === undefined) {
          at.set(key(x), out.length);
          out.push(x);
          continue;
        }
        out[i] = join(out[i], x);
      }
      return out;
    },
    size: (c) => c.reduce((n, b) => n + b.t.length, 0),
  };
}

export interface TSeriesRead<C> {
  orgId: string;
  clusterId: string;
  /** Names the series up to its window (query kind, node, resolution, step, metrics). */
  key: string;
  /** [from, to) in epoch ms. */
  from: number;
  to: number;
  /** Bucket width of a rollup read (settled edges align to it); 0 for raw samples. */
  bucketMs: number;
  /** The read also returns the bucket that holds `from` (stamped at its start), not only points from `from` on. */
  fromBucket?: boolean;
  /** How the points are held (`pointList`, `blockList`). */
  points: TPoints<C>;
  /** Estimated bytes of one point in memory (for `maxBytes`). */
  pointBytes: number;
  /** The points of [from, to), each computed as a read of any earlier `from` computes it. */
  fetch: (from: number, to: number) => Promise<C>;
}

interface TSeriesEntry {
  scope: string;
  /** `from` of the read that filled it: holds every point that read returned before `until`. */
  from: number;
  until: number;
  points: unknown;
  /** The points from `until` to `tailTo`, as ClickHouse had them when their read started (`readAt`). */
  tail: unknown;
  tailTo: number;
  readAt: number;
  bytes: number;
}
/** A final answer about a settled window (`answer`). */
interface TAnswerEntry {
  scope: string;
  answer: unknown;
  bytes: number;
}
type TEntry = TSeriesEntry | TAnswerEntry;

export interface TSeriesCache {
  read<C>(r: TSeriesRead<C>): Promise<C>;
  /** Drops a cluster's entries (samples older than the freshness edge were stored for it). */
  invalidate(orgId: string, clusterId: string): void;
  /** True when samples at `ts` may already be cached (older than the freshness edge). */
  settled(ts: number): boolean;
  /**
   * `fetch`'s answer about the newest data of a cluster (`clusterId` null: of the whole org), shared by
   * the calls that come before the next change notice for it (at most `quietMs` after it was read).
   */
  latest<T>(
    orgId: string,
    clusterId: string | null,
    key: string,
    fetch: () => Promise<T>,
    opts?: TLatestOptions<T>,
  ): Promise<T>;
  /**
   * `fetch`'s answer about a window of a cluster that ends at `to`: once `to` is older than the freshness
   * edge it is final and kept as settled points are (until late samples drop the cluster's entries);
   * before that it is shared as `latest` shares one.
   */
  answer<T>(orgId: string, clusterId: string, key: string, to: number, fetch: () => Promise<T>): Promise<T>;
  /** A change notice: samples (of `kinds`; unknown = any) were stored for the cluster. */
  changed(orgId: string, clusterId: string, kinds?: readonly string[]): void;
  /**
   * Whether change notices are being heard (the live bus listens). Until it is said, and while not,
   * every read asks ClickHouse for the newest data; hearing again counts as a change everywhere.
   */
  notices(on: boolean): void;
  /** Stops a pending refresh (shutdown, tests). */
  close(): void;
  readonly stats: { hits: number; misses: number; quiet: number; entries: number; bytes: number };
}

export interface TLatestOptions<T> {
  /** The end of the window the answer reads, if it reads one: no notice since then either. */
  to?: number;
  /** The sample kinds the answer depends on: notices that name only other kinds leave it as it is. */
  kinds?: readonly string[];
  /**
   * The same answer for a window ending at `t` (a live page's sliding window): what a refresh after a
   * notice reads once the answer's own window has ended (`to` ≤ `t`), and the key it is shared under.
   * Only for a window that ended at most `LIVE_EDGE_MS` before it was read (one ending "now").
   */
  slide?: (t: number) => { key: string; to: number; fetch: () => Promise<T> };
}

/** A window that ended at most this long before it was read is a live page's (client clocks included). */
const LIVE_EDGE_MS = 30_000;

/** Live-bus topic: samples were stored for `clusterId` (pages refetch; caches drop the newest part). */
export const SAMPLES = 'samples';

/** Live-bus topic: samples older than the freshness edge were stored for `clusterId` (every instance drops its entries). */
export const LATE_SAMPLES = 'samples-late';

const alignDown = (t: number, step: number) => (step > 0 ? Math.floor(t / step) * step : t);

/** A shared answer about the newest data (`latest`): when its read started, and who asked for it last. */
interface TLatest {
  scope: string;
  readAt: number;
  /** The end of the window it read (Infinity: none). */
  to: number;
  /** The sample kinds it depends on (undefined: any). */
  kinds?: readonly string[];
  slide?: TLatestOptions<unknown>['slide'];
  p: Promise<unknown>;
  fetch: () => Promise<unknown>;
  /**
   * When it was last asked for, and whether it was asked for more than once: reused since its read
   * started, or read by a request because a notice ended an earlier answer (a page that follows notices).
   */
  used: number;
  hot: boolean;
}

export function createSeriesCache(opts: TSeriesCacheOptions): TSeriesCache {
  const freshness = opts.freshnessMs ?? 60_000;
  const quietMs = opts.quietMs ?? 15_000;
  const refreshMs = opts.refreshMs === undefined ? 5 : opts.refreshMs;
  const hotMs = opts.hotMs ?? 5_000;
  const now = opts.now ?? Date.now;
  const lru = new LRUCache<string, TEntry>({
    maxSize: Math.max(1, opts.maxBytes),
    sizeCalculation: (e) => Math.max(1, e.bytes),
    ttl: opts.ttlMs ?? 600_000,
    perf: { now },
  });
  /** Per cluster: bumped by invalidate, so a read that started before it does not store what it read. */
  const gens = new Map<string, number>();
  const counts = { hits: 0, misses: 0, quiet: 0 };
  /** When the newest change notice came, per cluster (`org|cluster`) and per org; `heard`: since when notices arrive. */
  const changedAt = new Map<string, number>();
  let heard: number | null = null;
  const answers = new LRUCache<string, TLatest>({
    max: 5_000,
    ttl: quietMs,
    ttlAutopurge: true,
    perf: { now },
  });
  /** Scopes with a change notice whose answers are due a refresh, and the timer that runs it. */
  const due = new Set<string>();
  let refreshTimer: ReturnType<typeof setTimeout> | null = null;

  /**
   * Whether a read of the newest data of `scope` that started at `readAt` still holds now; `dataTo`: the
   * end of the window it read (a later window's extra part is known empty only if no sample came since).
   */
  const quiet = (scope: string, readAt: number, dataTo = Infinity, kinds?: readonly string[]) => {
    if (heard === null || now() - readAt >= quietMs) return false;
    let last = Math.max(heard, changedAt.get(kinds ? `${scope}#*` : scope) ?? 0);
    for (const k of kinds ?? []) last = Math.max(last, changedAt.get(`${scope}#${k}`) ?? 0);
    return last < readAt && last < dataTo;
  };

  const changed = (orgId: string, clusterId: string, kinds?: readonly string[]) => {
    const t = now();
    const scope = `${orgId}|${clusterId}`;
    changedAt.set(scope, t);
    changedAt.set(orgId, t);
    // Per kind for answers that name theirs (`#*`: a notice of unknown kinds).
    for (const k of kinds ?? ['*']) changedAt.set(`${scope}#${k}`, t).set(`${orgId}#${k}`, t);
    if (refreshMs === null) return;
    due.add(`${orgId}|${clusterId}`).add(orgId);
    if (!refreshTimer) (refreshTimer = setTimeout(refresh, refreshMs)).unref?.();
  };

  /** Starts a read for key `k` now, shared from here on. */
  const start = (k: string, a: Omit<TLatest, 'readAt' | 'p'>) => {
    const e: TLatest = { ...a, readAt: now(), p: a.fetch() };
    answers.set(k, e);
    e.p.catch(() => answers.get(k) === e && answers.delete(k));
    return e.p;
  };

  /**
   * Refresh-ahead: after a change notice, an answer that was asked for more than once (`hot`), the last
   * time within `hotMs` (a page that keeps reading it: on-call, an open dashboard), is read again at once,
   * so the next request finds it read or reading instead of starting the read itself. One that nobody
   * asks for again is read once more at most (a refresh is not a use). An answer about a window that has
   * ended could not be reused after the notice (see `quiet`): its `slide` reads the window that ends now.
   * Collected first: `start` reorders the LRU.
   */
  const refresh = () => {
    refreshTimer = null;
    const t = now();
    const todo = [...answers.entries()].filter(
      ([, a]) =>
        due.has(a.scope) &&
        a.hot &&
        t - a.used < hotMs &&
        (a.to > t || (a.slide && a.readAt - a.to < LIVE_EDGE_MS)) &&
        !quiet(a.scope, a.readAt, a.to, a.kinds),
    );
    due.clear();
    for (const [k, a] of todo) {
      const base = { ...a, hot: false };
      try {
        if (a.to > t) {
          void start(k, base).catch(() => undefined);
          continue;
        }
        a.hot = false; // its window has ended: from here on the slid answer's own uses count
        const next = a.slide!(t);
        const nk = `${a.scope}|${next.key}`;
        const cur = answers.get(nk);
        if (cur && cur !== a && quiet(cur.scope, cur.readAt, cur.to, cur.kinds)) continue;
        void start(nk, { ...base, to: next.to, fetch: next.fetch }).catch(() => undefined);
      } catch {
        answers.delete(k); // a fetch that threw at once: the next request reads
      }
    }
  };

  const latest = async <T>(
    orgId: string,
    clusterId: string | null,
    key: string,
    fetch: () => Promise<T>,
    o: TLatestOptions<T> = {},
  ): Promise<T> => {
    const scope = clusterId === null ? orgId : `${orgId}|${clusterId}`;
    const k = `${scope}|${key}`;
    const a = answers.get(k);
    if (a && quiet(scope, a.readAt, a.to, a.kinds)) {
      counts.quiet++;
      a.used = now();
      a.hot = true;
      return a.p as Promise<T>;
    }
    const { to = Infinity, kinds, slide } = o;
    return start(k, { scope, to, kinds, slide, fetch, used: now(), hot: a !== undefined }) as Promise<T>;
  };

  return {
    async read<C>(r: TSeriesRead<C>): Promise<C> {
      const scope = `${r.orgId}|${r.clusterId}`;
      const key = `${scope}|${r.key}`;
      const gen = gens.get(scope) ?? 0;
      const P = r.points;
      // The first timestamp a read from `from` returns.
      const start = r.fromBucket ? alignDown(r.from, r.bucketMs) : r.from;
      const got = lru.get(key);
      const e = got && 'points' in got ? got : undefined;
      let out: C;
      let readAt = 0;
      if (e && e.from <= r.from && start < e.until) {
        counts.hits++;
        const head = P.within(e.points as C, start, Math.min(e.until, r.to));
        if (r.to <= e.until) out = head;
        else if (quiet(scope, e.readAt, r.to > e.tailTo ? e.tailTo : Infinity)) {
          // The entry stays as it is (it may hold more than this window).
          counts.quiet++;
          return P.concat(head, P.within(e.tail as C, start, r.to));
        } else {
          readAt = now();
          out = P.concat(head, await r.fetch(e.until, r.to));
        }
      } else {
        counts.misses++;
        readAt = now();
        out = await r.fetch(r.from, r.to);
      }
      // Points before `until` are final: whole buckets, older than the freshness edge, inside the window.
      const until = alignDown(Math.min(now() - freshness, r.to), r.bucketMs);
      if (until > start && (gens.get(scope) ?? 0) === gen) {
        lru.set(key, {
          scope,
          from: r.from,
          until,
          points: P.within(out, -Infinity, until),
          tail: P.within(out, until, Infinity),
          tailTo: r.to,
          readAt,
          bytes: P.size(out) * r.pointBytes + 200,
        });
      }
      return out;
    },
    latest,
    async answer<T>(orgId: string, clusterId: string, key: string, to: number, fetch: () => Promise<T>) {
      if (to >= now() - freshness) return latest(orgId, clusterId, key, fetch, { to });
      const scope = `${orgId}|${clusterId}`;
      const k = `${scope}|answer|${key}`;
      const e = lru.get(k);
      if (e && 'answer' in e) {
        counts.hits++;
        return e.answer as T;
      }
      counts.misses++;
      const gen = gens.get(scope) ?? 0;
      const v = await fetch();
      if ((gens.get(scope) ?? 0) === gen)
        lru.set(k, { scope, answer: v, bytes: 2 * JSON.stringify(v).length + 200 });
      return v;
    },
    changed,
    notices(on) {
      heard = on ? now() : null;
      changedAt.clear();
      if (!on) answers.clear();
    },
    close() {
      if (refreshTimer) clearTimeout(refreshTimer);
      refreshTimer = null;
      due.clear();
    },
    invalidate(orgId, clusterId) {
      const scope = `${orgId}|${clusterId}`;
      gens.set(scope, (gens.get(scope) ?? 0) + 1);
      for (const [k, e] of lru.entries()) if (e.scope === scope) lru.delete(k);
      changed(orgId, clusterId);
    },
    settled: (ts) => ts < now() - freshness,
    get stats() {
      return { ...counts, entries: lru.size, bytes: lru.calculatedSize };
    },
  };
}

/** Reads through `cache` when the app has one, else straight from ClickHouse. */
export const readSeries = <C>(cache: TSeriesCache | undefined, r: TSeriesRead<C>): Promise<C> =>
  cache ? cache.read(r) : r.fetch(r.from, r.to);

/** `cache.latest` when the app has one, else `fetch()`. */
export const readLatestOf = <T>(
  cache: TSeriesCache | undefined,
  orgId: string,
  clusterId: string | null,
  key: string,
  fetch: () => Promise<T>,
  opts?: TLatestOptions<T>,
): Promise<T> => (cache ? cache.latest(orgId, clusterId, key, fetch, opts) : fetch());

/** `cache.answer` when the app has one, else `fetch()`. */
export const readAnswerOf = <T>(
  cache: TSeriesCache | undefined,
  orgId: string,
  clusterId: string,
  key: string,
  to: number,
  fetch: () => Promise<T>,
): Promise<T> => (cache ? cache.answer(orgId, clusterId, key, to, fetch) : fetch());
