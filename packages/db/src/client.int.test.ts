import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dropTestDatabase } from '../test/pg';
import { createDb, type TDb } from './client';
import { createOrganization, listOrgsForUser } from './repos/orgs';

let url: string;
let db: TDb;
const request = new AsyncLocalStorage<number[]>();

beforeAll(async () => {
  url = await createTestDatabase();
  db = createDb(url, { observe: (ms) => request.getStore()?.push(ms) });
});
afterAll(async () => {
  await db.$disconnect();
  await dropTestDatabase(url);
});

describe('createDb observe (Server-Timing)', () => {
  it('reports each operation in the async context of the request that made it', async () => {
    const [a, b] = await Promise.all([
      request.run([], async () => {
        await createOrganization(db, { name: 'Acme', slug: 'acme' });
        await db.$queryRawUnsafe('SELECT 1 AS x FROM pg_sleep(0.05)');
        return request.getStore()!;
      }),
      request.run([], async () => {
        await listOrgsForUser(db, 'nobody');
        return request.getStore()!;
      }),
    ]);
    expect(b).toHaveLength(1);
    expect(a.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...a)).toBeGreaterThanOrEqual(45);
    // The extended client is still the model API (and a transaction's operations are reported too).
    const inTx = await request.run([], async () => {
      await db.$transaction(async (tx) => tx.organization.findMany());
      return request.getStore()!;
    });
    expect(inTx.length).toBeGreaterThanOrEqual(1);
  });
});
