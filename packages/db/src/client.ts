import { setPriority } from 'node:os';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client';

export type TDb = PrismaClient;

/**
 * A Prisma client with its own connection pool; the caller owns it (`$disconnect`). `backendNice`: the server processes
 * of this client's connections run at that nice value when PostgreSQL is on this machine (loopback or
 * a socket), so background work (the alerting thread) yields to the requests' queries too. `observe`
 * gets every operation's duration (ms), in the caller's async context (Server-Timing), first call only.
 */
export function createDb(
  url: string,
  opts: { backendNice?: number; observe?: (ms: number) => void; onPoolError?: (err: Error) => void } = {},
): TDb {
  const config = { connectionString: url, max: 10 };
  const nice = opts.backendNice ?? 0;
  let pool: pg.Pool | null = null;
  if (nice > 0 && isLocal(url)) {
    // Awaited before the pool hands the connection out (pg-pool's onConnect).
    pool = new pg.Pool({
      ...config,
      onConnect: async (client) => {
        try {
          const r = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          setPriority(r.rows[0].pid, nice);
        } catch {
          // not permitted: the backend keeps its priority
        }
      },
    });
  }
  const adapter = new PrismaPg(pool ?? config, {
    disposeExternalPool: true,
    // Without a handler, a server shutdown (SIGTERM to embedded pg) crashes the process.
    onPoolError: opts.onPoolError ?? ((err) => console.error(`postgres pool error: ${err.message}`)),
  });
  const client = new PrismaClient({ adapter });
  const observe = opts.observe;
  // Same model API; the cast keeps the one client type (extensions only change the inferred type).
  const db = observe
    ? (client.$extends({
        query: {
          async $allOperations({ args, query }) {
            const t = performance.now();
            try {
              return await query(args);
            } finally {
              observe(performance.now() - t);
            }
          },
        },
      }) as unknown as TDb)
    : client;
  return db;
}

function isLocal(url: string): boolean {
  try {
    const u = new URL(url);
    const host = u.searchParams.get('host') ?? u.hostname;
    return host === '' || host.startsWith('/') || /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(host);
  } catch {
    return false;
  }
}

export async function pingDb(db: TDb): Promise<void> {
  await db.$queryRawUnsafe('SELECT 1');
}
