/**
 * Shared setup for the services int tests (not exported by the package): a fresh PostgreSQL database and a temp
 * ClickHouse per test file, plus the helpers that turn a rejected service call into a comparable string.
 */
import { createDb, type TDb } from '@clusterscope/db';
import type { TTsdb } from '@clusterscope/tsdb';
import { openTempClickHouse } from '@clusterscope/tsdb/testing';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, dropTestDatabase } from '@clusterscope/db/testing';
import type { TDeps } from './deps';
import { AppError } from './errors';

export type TTestEnv = {
  url: string;
  db: TDb;
  ch: TTsdb;
  deps: TDeps;
  /** Closes ClickHouse now (to test an outage); the teardown then skips it. */
  closeCh: () => Promise<void>;
};

/**
 * Registers hooks that open the stores before the file's own `beforeAll` and close them after its `afterAll`.
 * The returned object is filled in once the first hook has run; `extra` adds deps (secrets, jobBus, …).
 */
export function useTestEnv(extra: (url: string) => Partial<TDeps> = () => ({})): TTestEnv {
  let cleanupCh: (() => Promise<void>) | undefined;
  const env = {
    closeCh: async () => {
      const close = cleanupCh;
      cleanupCh = undefined;
      await close?.();
    },
  } as TTestEnv;
  beforeAll(async () => {
    env.url = await createTestDatabase();
    env.db = createDb(env.url);
    ({ ch: env.ch, cleanup: cleanupCh } = await openTempClickHouse());
    env.deps = { db: env.db, ch: env.ch, ...extra(env.url) };
  });
  afterAll(async () => {
    await env.closeCh();
    await env.db?.$disconnect();
    if (env.url) await dropTestDatabase(env.url);
  });
  return env;
}

/** How `p` settles: 'ok', the AppError code, or `thrown: …` for anything else. */
export async function errorCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return err instanceof AppError ? err.code : `thrown: ${String(err)}`;
  }
}

/** Like {@link errorCode}, with the AppError's message: `CODE: message`. */
export async function errorReason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return err instanceof AppError ? `${err.code}: ${err.message}` : `thrown: ${String(err)}`;
  }
}

/** A fresh heartbeat from an idle agent with these tools (empty outbox, up 1 s). */
export function idleHeartbeat(capabilities: string[]) {
  return { version: 't', capabilities, outboxBytes: 0, outboxEvictions: 0, uptimeS: 1, seenAt: new Date() };
}

/** The pgbench workload "tpcb" the job tests queue: 5 s against a target that holds a password. */
export function tpcbWorkload(clients: number) {
  const target = 'postgresql://u:secret@127.0.0.1:5432/db';
  return { name: 'tpcb', tool: 'pgbench' as const, params: { clients }, target, durationS: 5 };
}

/** A real SMTP server on loopback that keeps what it receives; `close()` when done. */
export async function startSmtpInbox() {
  const inbox: { to: string; body: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      let body = '';
      stream.on('data', (c: Buffer) => (body += c.toString()));
      stream.on('end', () => {
        inbox.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), body });
        done();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as { port: number }).port;
  return {
    inbox,
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
