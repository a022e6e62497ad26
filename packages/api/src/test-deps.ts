/** For the API's integration tests: real stores, a fresh PostgreSQL database and a temp chDB. */
import { randomUUID } from 'node:crypto';
import { createOpenApiFetchHandler } from 'trpc-to-openapi';
import { createDb, type TDb } from '@clusterscope/db';
import type { TDeps } from '@clusterscope/services/core';
import { createToken } from '@clusterscope/services/tenancy';
import { openTempClickHouse } from '@clusterscope/tsdb/testing';
import { createTestDatabase } from '@clusterscope/db/testing';
import { appRouter } from './root';

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

/** An organization and the admin token CI would hold for it. */
export async function createOrgWithToken(
  deps: TDeps,
  org: { name: string; slug: string },
): Promise<{ orgId: string; token: string }> {
  const orgId = (await deps.db.organization.create({ data: { id: randomUUID(), ...org } })).id;
  const { token } = await createToken(deps, orgId, { name: 'ci', scopes: ['admin'] });
  return { orgId, token };
}

/** One request through the real REST adapter (/api/v1) with `token` as its bearer, as CI sends it. */
export function restRequest(deps: TDeps, token: string, method: string, path: string, body?: unknown) {
  return createOpenApiFetchHandler({
    endpoint: '/api/v1',
    req: new Request(`http://127.0.0.1/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    router: appRouter,
    createContext: () => ({ deps, userId: null, bearer: token, orgSlug: null }),
  });
}
