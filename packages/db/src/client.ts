import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

export type TDb = PrismaClient;

const cache = globalThis as unknown as { __csPrisma?: Map<string, TDb> };

/** One Prisma client per URL per process (dev reloads reuse it). */
export function createDb(url: string): TDb {
  cache.__csPrisma ??= new Map();
  const hit = cache.__csPrisma.get(url);
  if (hit) return hit;
  const adapter = new PrismaPg(
    { connectionString: url, max: 10 },
    {
      // Without a handler, a server shutdown (SIGTERM to embedded pg) crashes the process.
      onPoolError: (err) =>
        console.error(JSON.stringify({ level: 'warn', msg: 'postgres pool error', err: err.message })),
    },
  );
  const db = new PrismaClient({ adapter });
  cache.__csPrisma.set(url, db);
  return db;
}

export async function pingDb(db: TDb): Promise<void> {
  await db.$queryRawUnsafe('SELECT 1');
}
