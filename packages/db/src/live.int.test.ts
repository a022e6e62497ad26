import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createEmptyTestDatabase, dropTestDatabase } from '../test/pg';
import { createLiveBus } from './live';

let url: string;
beforeAll(async () => void (url = await createEmptyTestDatabase()));
afterAll(() => dropTestDatabase(url));

/** Ends the LISTEN connection from the server side (a restart, a failover). */
async function dropListener(channel: string) {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()',
    [`LISTEN ${channel}`],
  );
  await admin.end();
}

it('says when notices are heard: after LISTEN, not while its connection is gone, again once it is back', async () => {
  const bus = createLiveBus(url, 'live_test');
  const states: boolean[] = [];
  const off = bus.onListening((on) => states.push(on));
  expect(states).toEqual([false]);
  const got: string[] = [];
  await bus.subscribe('o', (e) => got.push(e.topic));
  expect(states).toEqual([false, true]);
  await bus.publish({ orgId: 'o', topic: 'a' });
  await vi.waitFor(() => expect(got).toEqual(['a']));

  // Notices sent while the connection is gone are lost.
  await dropListener('live_test');
  await vi.waitFor(() => expect(states).toEqual([false, true, false]));
  await vi.waitFor(() => expect(states).toEqual([false, true, false, true]), { timeout: 10_000 });
  await bus.publish({ orgId: 'o', topic: 'b' });
  await vi.waitFor(() => expect(got).toEqual(['a', 'b']));
  off();
  await bus.close();
});

it("tells its own notices' echoes from other instances' notices", async () => {
  const a = createLiveBus(url, 'live_own');
  const b = createLiveBus(url, 'live_own');
  const got: string[] = [];
  await a.subscribeAll((e, own) => got.push(`${e.topic}:${own}`));
  await b.subscribeAll(() => undefined);
  await a.publish({ orgId: 'o', topic: 'mine' });
  await b.publish({ orgId: 'o', topic: 'theirs' });
  // The same payload twice (same millisecond) is two own notices, then none.
  vi.useFakeTimers({ toFake: ['Date'], now: 1_000 });
  await a.publish({ orgId: 'o', topic: 'twice' });
  await a.publish({ orgId: 'o', topic: 'twice' });
  await b.publish({ orgId: 'o', topic: 'twice' });
  vi.useRealTimers();
  await vi.waitFor(() => expect(got).toHaveLength(5));
  expect(got).toEqual(['mine:true', 'theirs:false', 'twice:true', 'twice:true', 'twice:false']);
  await a.close();
  await b.close();
});
