import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { isEmbeddedInitialised, startEmbeddedPostgres, type TEmbeddedPg } from '@clusterscope/db/embedded';
import type { TLaunchEnv } from './env';

export interface TPg {
  url: string;
  embedded: TEmbeddedPg | null;
  stop(): Promise<void>;
}

export const redact = (url: string) => {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return '<unparseable DATABASE_URL>';
  }
};

/** Fails fast (5 s) with one line naming Postgres and the address tried. */
export async function probePostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new Error(`PostgreSQL unreachable at ${redact(url)}: ${(err as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** DATABASE_URL when set, else the embedded server under DATA_DIR/postgres. */
export async function openPostgres(
  env: TLaunchEnv,
  opts: { requireInitialised?: boolean } = {},
): Promise<TPg> {
  if (env.DATABASE_URL) {
    await probePostgres(env.DATABASE_URL);
    return { url: env.DATABASE_URL, embedded: null, stop: async () => undefined };
  }
  const dataDir = path.join(env.DATA_DIR, 'postgres');
  if (opts.requireInitialised && !isEmbeddedInitialised(dataDir))
    throw new Error(`embedded PostgreSQL is not initialised in ${dataDir}: run \`npm start\` once first`);
  fs.mkdirSync(env.DATA_DIR, { recursive: true });
  const embedded = await startEmbeddedPostgres({ dataDir, port: env.PG_PORT });
  return { url: embedded.url, embedded, stop: () => embedded.stop() };
}
