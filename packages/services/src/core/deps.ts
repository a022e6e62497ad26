import type { TDb, TLiveBus } from '@clusterscope/db';
import type { TTsdb } from '@clusterscope/tsdb';
import type { TSecretKeys } from './secrets';
import type { TMailer } from './mail';
import type { TSeriesCache } from '../reads/series-cache';
import type { TOutbound } from './outbound';
import type { TParser } from '../ingest/parse-pool';
import type { TLogger } from './logger';

/** Handles a service needs; created once per process by the app (apps/web) or a script. */
export interface TDeps {
  db: TDb;
  ch: TTsdb;
  /** SECRETS_KEY (+ previous keys) for workload credentials; see secretKeysOf for when it is absent. */
  secrets?: TSecretKeys;
  /** LISTEN/NOTIFY bus on JOBS_CHANNEL that wakes job long-polls on every instance (optional: in-process only). */
  jobBus?: TLiveBus;
  /** SMTP mailer when configured (invitations); without it the UI shows links to copy. */
  mail?: TMailer | null;
  /** Public origin for links in mail (invitations) and alert notifications. */
  origin?: string;
  /** VAPID keys for Web Push alert notifications (env or generated into the data dir). */
  vapid?: { publicKey: string; privateKey: string; subject: string };
  /** Settled chart series kept in memory (series-cache.ts); without it every chart read goes to ClickHouse. */
  series?: TSeriesCache;
  /** Requests to URLs users chose (channels, push); without it only public addresses are reachable. */
  outbound?: TOutbound;
  /** Parses posted tool output on a worker with a time budget; without it, on the calling thread. */
  parser?: TParser;
  /** The process's logger (logger.ts); without it, logOf() gives a stderr logger. */
  log?: TLogger;
}
