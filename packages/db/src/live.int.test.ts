import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createEmptyTestDatabase, dropTestDatabase } from '../test/pg';
import { createLiveBus } from './live';

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

  // Postgres drops the LISTEN connection (a restart, a failover): notices sent now are lost.
  await admin.query(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN live_test' AND pid <> pg_backend_pid()",
  );
  await vi.waitFor(() => expect(states).toEqual([false, true, false]));
  await vi.waitFor(() => expect(states).toEqual([false, true, false, true]), { timeout: 10_000 });
  await bus.publish({ orgId: 'o', topic: 'b' });
  await vi.waitFor(() => expect(got).toEqual(['a', 'b']));
  off();
  await bus.close();
});
