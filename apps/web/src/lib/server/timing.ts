import { AsyncLocalStorage } from 'node:async_hooks';

/*
 * Per-request store time for the `Server-Timing` response header (SERVER_TIMING=1): how many PostgreSQL
 * and ClickHouse calls a request made and their summed durations, next to the total. Browsers show it
 * under Network → Timing; `npm run bench:pages` reports it per page. Parallel calls overlap, so a
 * store's sum can exceed the total. ClickHouse time is until the result arrives (chDB: the whole query).
 */

export type TStore = 'pg' | 'ch';

interface TTimings {
  started: number;
  n: Record<TStore, number>;
  ms: Record<TStore, number>;
}

const als = new AsyncLocalStorage<TTimings>();

/** Runs `fn` with a fresh timing record (one per request). */
export function withTimings<T>(fn: () => T): T {
  return als.run({ started: performance.now(), n: { pg: 0, ch: 0 }, ms: { pg: 0, ch: 0 } }, fn);
}

/** Adds one call of `ms` to the current request's record (none outside a request: ignored). */
export function record(store: TStore, ms: number): void {
  const t = als.getStore();
  if (!t) return;
  t.n[store]++;
  t.ms[store] += ms;
}

/** `f()`, its duration recorded under `store` whether it resolves or throws. */
export async function timed<T>(store: TStore, f: () => Promise<T>): Promise<T> {
  if (!als.getStore()) return f();
  const t = performance.now();
  try {
    return await f();
  } finally {
    record(store, performance.now() - t);
  }
}

/** `o` with the methods `names` timed under `store` (other members pass through, bound to `o`). */
export function timeMethods<T extends object>(o: T, store: TStore, names: readonly (keyof T)[]): T {
  const wanted = new Set<PropertyKey>(names);
  return new Proxy(o, {
    get(target, key) {
      const v = Reflect.get(target, key, target) as unknown;
      if (typeof v !== 'function') return v;
      const fn = v as (...a: unknown[]) => unknown;
      if (!wanted.has(key)) return fn.bind(target);
      return (...a: unknown[]) => timed(store, async () => fn.apply(target, a));
    },
  });
}

const ms = (x: number) => Math.round(x * 10) / 10;

/** The current request's `Server-Timing` value, or null outside a request. */
export function serverTiming(): string | null {
  const t = als.getStore();
  if (!t) return null;
  const total = performance.now() - t.started;
  return [
    `pg;dur=${ms(t.ms.pg)};desc="${t.n.pg} PostgreSQL queries"`,
    `ch;dur=${ms(t.ms.ch)};desc="${t.n.ch} ClickHouse queries"`,
    `total;dur=${ms(total)}`,
  ].join(', ');
}
