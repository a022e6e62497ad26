import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEmptyTestDatabase, dropTestDatabase } from '../test/pg';
import { createLeaderLock } from './advisory-lock';

const KEY = 4242;
let url: string;
let admin: pg.Client;

beforeAll(async () => {
  url = await createEmptyTestDatabase();
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await dropTestDatabase(url);
});

const held = async () =>
  Number(
    (
      await admin.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted",
        [KEY],
      )
    ).rows[0].n,
  );

it('a leader whose session died sits out its backoff, so another instance takes over', async () => {
  const a = createLeaderLock(url, KEY, { backoffMs: 3_000 });
  const b = createLeaderLock(url, KEY);
  try {
    expect(await a.tryAcquire()).toBe(true);
    expect(await b.tryAcquire()).toBe(false);
    await admin.query('SELECT pg_terminate_backend($1)', [a.backendPid()]);
    for (let i = 0; i < 100 && (a.isLeader() || (await held()) > 0); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await held()).toBe(0);
    // The old leader asks first, and would win the lock back without the backoff.
    expect(await a.tryAcquire()).toBe(false);
    expect(await b.tryAcquire()).toBe(true);
    expect(b.isLeader()).toBe(true);
    expect(await held()).toBe(1);
  } finally {
    await a.close();
    await b.close();
  }
});
