import type { ChdbConnection, Connection } from 'chdb/connection';
import type { Readable } from 'node:stream';
import { bindLiterals } from './chdb-bind';

/**
 * chDB runs one query at a time per connection, so with one connection every read waits for the queries
 * ahead of it. The pool sends each call to
 * the connection with the fewest calls running; all share the process's one engine and data directory.
 * Parameters are bound as literals first (chdb-bind.ts): chdb runs queries that use its own binder one
 * at a time process-wide, whatever the connection.
 */
export interface TChdbPool extends Connection<Readable> {
  /** Runs `f` on the least busy connection. */
  run<T>(f: (c: ChdbConnection) => Promise<T>): Promise<T>;
}

export function chdbPool(conns: readonly ChdbConnection[]): TChdbPool {
  const busy = conns.map(() => 0);
  const run = async <T>(f: (c: ChdbConnection) => Promise<T>): Promise<T> => {
    let i = 0;
    for (let j = 1; j < conns.length; j++) if (busy[j] < busy[i]) i = j;
    busy[i]++;
    try {
      return await f(conns[i]);
    } finally {
      busy[i]--;
    }
  };
  return {
    run,
    ping: (p) => run((c) => c.ping(p)),
    query: (p) => run((c) => c.query(bound(p))),
    insert: (p) => run((c) => c.insert(p)),
    command: (p) => run((c) => c.command(bound(p))),
    exec: (p) => run((c) => c.exec(bound(p))),
    close: async () => {
      await Promise.all(conns.map((c) => c.close()));
    },
  };
}

function bound<P extends { query: string; query_params?: Record<string, unknown> }>(p: P): P {
  if (!p.query_params || Object.keys(p.query_params).length === 0) return p;
  const query = bindLiterals(p.query, p.query_params);
  return query === null ? p : { ...p, query, query_params: undefined };
}
