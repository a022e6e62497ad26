import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openClickHouse, type TTsdb } from './client';
import { migrate } from './migrate';

/** Test and benchmark helpers (`@clusterscope/tsdb/testing`), kept out of the main entry. */
export * from './bench-data';

/**
 * For *.int.test.ts: chDB in a fresh temp dir, migrated. One per test file (one chDB dir per process);
 * `cleanup()` closes it and removes the directory.
 */
export async function openTempClickHouse(): Promise<{ ch: TTsdb; dir: string; cleanup(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'clusterscope-chdb-'));
  const ch = await openClickHouse({ path: dir });
  await migrate(ch);
  return {
    ch,
    dir,
    async cleanup() {
      await ch.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
