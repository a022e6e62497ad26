import pg from 'pg';

/** A leadership handle: `isLeader()` turns false as soon as the lock's connection is gone. */
export interface TLeaderLock {
  isLeader(): boolean;
  /** Tries to take the lock (no-op while held); true when this process leads after the call. */
  tryAcquire(): Promise<boolean>;
  /** Releases the lock and closes its connection. */
  close(): Promise<void>;
  /** The backend pid holding our session (tests terminate it to simulate a dead leader). */
  backendPid(): number | null;
}

/**
 * Leader election with a PostgreSQL session advisory lock (`pg_try_advisory_lock`) on a dedicated connection:
 * the lock lives exactly as long as that session, so a crashed or partitioned leader releases it when
 * PostgreSQL drops its connection, and the next `tryAcquire` of another instance wins. The old leader sits
 * out `backoffMs` first (else it could reconnect and win the lock back before the others try: a flaky
 * leader would keep leading, and the handover test failed when it did).
 */
export function createLeaderLock(url: string, key: number, opts: { backoffMs?: number } = {}): TLeaderLock {
  const backoffMs = opts.backoffMs ?? 5_000;
  let client: pg.Client | null = null;
  let leader = false;
  let pid: number | null = null;
  let closed = false;
  /** A leader whose session died waits this long before contending again: a healthy instance takes over. */
  let retryAt = 0;

  const drop = () => {
    if (leader && !closed) retryAt = Date.now() + backoffMs;
    leader = false;
    pid = null;
    const c = client;
    client = null;
    c?.end().catch(() => undefined);
  };

  return {
    isLeader: () => leader && client !== null,
    backendPid: () => pid,
    async tryAcquire() {
      if (closed || Date.now() < retryAt) return false;
      if (leader && client) {
        // Still holding? A query on the session proves the connection (and so the lock) is alive.
        try {
          await client.query('SELECT 1');
          return true;
        } catch {
          drop();
          return false;
        }
      }
      try {
        if (!client) {
          const c = new pg.Client({ connectionString: url, application_name: 'clusterscope-leader' });
          c.on('error', drop);
          c.on('end', () => {
            if (client === c) drop();
          });
          await c.connect();
          client = c;
        }
        const r = await client.query<{ ok: boolean; pid: number }>(
          'SELECT pg_try_advisory_lock($1) AS ok, pg_backend_pid() AS pid',
          [key],
        );
        leader = r.rows[0]?.ok === true;
        pid = r.rows[0]?.pid ?? null;
        return leader;
      } catch {
        drop();
        return false;
      }
    },
    async close() {
      closed = true;
      const c = client;
      if (c && leader) await c.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
      drop();
    },
  };
}
