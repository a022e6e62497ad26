import type { TDb } from '@clusterscope/db';
import type { TTsdb } from '@clusterscope/tsdb';
import type { TMailer } from './mail';

/** Handles a service needs; created once per process by the app (apps/web) or a script. */
export interface TDeps {
  db: TDb;
  ch: TTsdb;
  /** SMTP mailer when configured (invitations); without it the UI shows links to copy. */
  mail?: TMailer | null;
  /** Public origin for links in mail (invitations). */
  origin?: string;
}
