/** For the API's integration tests: real stores, a fresh PostgreSQL database and a temp chDB. */
import { createDb, type TDb } from '@clusterscope/db';
import type { TDeps } from '@clusterscope/services/core';
import { openTempClickHouse } from '@clusterscope/tsdb/testing';
import { createTestDatabase } from '@clusterscope/db/testing';

export async function openTestDeps(): Promise<{ db: TDb; deps: TDeps; close: () => Promise<void> }> {
  const db = createDb(await createTestDatabase());
  const ch = await openTempClickHouse();
  return {
    db,
    deps: { db, ch: ch.ch },
    close: async () => {
      await db.$disconnect();
      await ch.cleanup();
    },
  };
}
