import type { TDb } from '@clusterscope/db';
import type { TTsdb } from '@clusterscope/tsdb';

/** Handles a service needs; created once per process by the app (apps/web) or a script. */
export interface TDeps {
  db: TDb;
  ch: TTsdb;
}
