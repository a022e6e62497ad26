import { LRUCache } from 'lru-cache';

/**
 * Settled-results cache for chart series, by extents (as Cortex/Thanos' query frontend caches results):
 * samples older than `freshnessMs` (rollups: whole buckets that ended by then) do not change once
 * written, so a repeated read of a series serves them from memory and asks ClickHouse only for the
 * rest of the window. Every read still sees the newest data. Samples stored late for a cluster
 * (older than the freshness edge) drop its entries on every instance (`invalidate`, via the live
 * bus); an entry lives at most `ttlMs` in any case.
 */
export interface TSeriesCacheOptions {
  /** Upper bound of the memory the cached points take (estimated per point). */
  maxBytes: number;
  /** Samples newer than this may still arrive (agent interval + retries). Default 60 s. */
  freshnessMs?: number;
  /** Longest life of an entry. Default 10 min. */
  ttlMs?: number;
  now?: () => number;
}

export interface TSeriesRead<T> {
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
  ts: (p: T) => number;
  /** Estimated bytes of one point in memory (for `maxBytes`). */
  pointBytes: number;
  /** The points of [from, to), each computed as a read of any earlier `from` computes it. */
  fetch: (from: number, to: number) => Promise<T[]>;
}

interface TEntry {
  scope: string;
  /** `from` of the read that filled it: holds every point that read returned before `until`. */
  from: number;
  until: number;
  points: unknown[];
  bytes: number;
}

export interface TSeriesCache {
  read<T>(r: TSeriesRead<T>): Promise<T[]>;
  /** Drops a cluster's entries (samples older than the freshness edge were stored for it). */
  invalidate(orgId: string, clusterId: string): void;
  /** True when samples at `ts` may already be cached (older than the freshness edge). */
  settled(ts: number): boolean;
  readonly stats: { hits: number; misses: number; entries: number; bytes: number };
}

/** Live-bus topic: samples older than the freshness edge were stored for `clusterId` (every instance drops its entries). */
export const LATE_SAMPLES = 'samples-late';

const alignDown = (t: number, step: number) => (step > 0 ? Math.floor(t / step) * step : t);

export function createSeriesCache(opts: TSeriesCacheOptions): TSeriesCache {
  const freshness = opts.freshnessMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const lru = new LRUCache<string, TEntry>({
    maxSize: Math.max(1, opts.maxBytes),
    sizeCalculation: (e) => Math.max(1, e.bytes),
    ttl: opts.ttlMs ?? 600_000,
    perf: { now },
  });
  /** Per cluster: bumped by invalidate, so a read that started before it does not store what it read. */
  const gens = new Map<string, number>();
  const counts = { hits: 0, misses: 0 };

  return {
    async read<T>(r: TSeriesRead<T>): Promise<T[]> {
      const scope = `${r.orgId}|${r.clusterId}`;
      const key = `${scope}|${r.key}`;
      const gen = gens.get(scope) ?? 0;
      // The first timestamp a read from `from` returns.
      const start = r.fromBucket ? alignDown(r.from, r.bucketMs) : r.from;
      const e = lru.get(key);
      let out: T[];
      if (e && e.from <= r.from && start < e.until) {
        counts.hits++;
        const end = Math.min(e.until, r.to);
        const head = (e.points as T[]).filter((p) => {
          const t = r.ts(p);
          return t >= start && t < end;
        });
        out = r.to > e.until ? head.concat(await r.fetch(e.until, r.to)) : head;
      } else {
        counts.misses++;
        out = await r.fetch(r.from, r.to);
      }
      // Points before `until` are final: whole buckets, older than the freshness edge, inside the window.
      const until = alignDown(Math.min(now() - freshness, r.to), r.bucketMs);
      if (until > start && (gens.get(scope) ?? 0) === gen) {
        // Points come per series in time order, not globally: keep every point before `until`.
        const points = out.filter((p) => r.ts(p) < until);
        lru.set(key, { scope, from: r.from, until, points, bytes: points.length * r.pointBytes + 200 });
      }
      return out;
    },
    invalidate(orgId, clusterId) {
      const scope = `${orgId}|${clusterId}`;
      gens.set(scope, (gens.get(scope) ?? 0) + 1);
      for (const [k, e] of lru.entries()) if (e.scope === scope) lru.delete(k);
    },
    settled: (ts) => ts < now() - freshness,
    get stats() {
      return { ...counts, entries: lru.size, bytes: lru.calculatedSize };
    },
  };
}

/** Reads through `cache` when the app has one, else straight from ClickHouse. */
export const readSeries = <T>(cache: TSeriesCache | undefined, r: TSeriesRead<T>): Promise<T[]> =>
  cache ? cache.read(r) : r.fetch(r.from, r.to);
