/**
 * Error answers through the real tRPC and REST adapters: an unexpected failure (injected into the cluster table
 * of a real PostgreSQL) answers 500 {message:'internal error', id} and is logged under that id with its text;
 * a NUL character anywhere in the input answers 400 naming the field, before any store sees it.
 */
import { randomUUID } from 'node:crypto';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createOpenApiFetchHandler } from 'trpc-to-openapi';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TDb } from '@clusterscope/db';
import { createLogger, type TDeps } from '@clusterscope/services/core';
import { createToken } from '@clusterscope/services/tenancy';
import { openTestDeps } from './test-deps';
import { appRouter } from './root';
import { nulPath, type TContext } from './trpc';

const INTERNAL = 'relation "Cluster" is broken at SELECT "id" FROM "Cluster" (prisma/client.ts:42)';
const LEAKS = /prisma|postgres|relation|SELECT|\.ts:\d+|\bat \w+ \(/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let db: TDb;
let deps: TDeps;
let broken: TDeps;
let token: string;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ db, deps, close } = await openTestDeps());
  const org = await db.organization.create({ data: { id: randomUUID(), name: 'E', slug: 'org-e' } });
  token = (await createToken(deps, org.id, { name: 'ci', scopes: ['admin'] })).token;
  // Every query on the cluster table fails as an unexpected database error would; the rest is the real database.
  const cluster = new Proxy(db.cluster, {
    get: (t, k) =>
      typeof k === 'string' && k.startsWith('find')
        ? () => Promise.reject(new Error(INTERNAL))
        : Reflect.get(t, k),
  });
  broken = { ...deps, db: new Proxy(db, { get: (t, k) => (k === 'cluster' ? cluster : Reflect.get(t, k)) }) };
}, 120_000);

afterAll(() => close?.());

type TTrpcError = { error: { message: string } };

const ctx = (d: TDeps): TContext => ({ deps: d, userId: null, bearer: token, orgSlug: null });
const headers = () => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

const rest = (d: TDeps, method: string, path: string, body?: unknown) =>
  createOpenApiFetchHandler({
    endpoint: '/api/v1',
    req: new Request(`http://127.0.0.1/api/v1${path}`, {
      method,
      headers: headers(),
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    router: appRouter,
    createContext: () => ctx(d),
  });

/** A query goes as GET ?input=, a mutation as POST. */
const trpc = (d: TDeps, path: string, body: unknown, method: 'GET' | 'POST' = 'POST') =>
  fetchRequestHandler({
    endpoint: '/api/trpc',
    req: new Request(
      `http://127.0.0.1/api/trpc/${path}` +
        (method === 'GET' ? `?input=${encodeURIComponent(JSON.stringify(body))}` : ''),
      { method, headers: headers(), body: method === 'POST' ? JSON.stringify(body) : undefined },
    ),
    router: appRouter,
    createContext: () => ctx(d),
  });

/** The broken deps with a logger whose lines the test reads. */
function logged() {
  const lines: string[] = [];
  const deps: TDeps = { ...broken, log: createLogger({ destination: { write: (s) => void lines.push(s) } }) };
  return { deps, lines: () => lines };
}

it('REST: an unexpected error answers 500 {message, id}, nothing internal; the log has the id and the cause', async () => {
  const log = logged();
  const res = await rest(log.deps, 'GET', '/clusters');
  const text = await res.text();
  expect(res.status, text).toBe(500);
  const body = JSON.parse(text);
  expect(body.message).toBe('internal error');
  expect(body.id).toMatch(UUID);
  expect(text).not.toMatch(LEAKS);
  const line = log.lines().find((l) => l.includes(body.id));
  expect(line).toBeDefined();
  expect(JSON.parse(line!)).toMatchObject({ level: 'error', id: body.id, path: 'clusters.list' });
  expect(line).toContain('relation \\"Cluster\\" is broken');
});

it('tRPC: the same error carries only the id', async () => {
  const log = logged();
  const res = await trpc(log.deps, 'clusters.list', {}, 'GET');
  const text = await res.text();
  expect(res.status, text).toBe(500);
  const body = JSON.parse(text);
  expect(body.error.message).toBe('internal error');
  expect(body.error.data.id).toMatch(UUID);
  expect(text).not.toMatch(LEAKS);
  expect(log.lines().some((l) => l.includes(body.error.data.id) && l.includes('is broken'))).toBe(true);
});

it('the same request on the healthy database answers 200 (the injection is what failed)', async () => {
  const res = await rest(deps, 'GET', '/clusters');
  expect(res.status).toBe(200);
});

it('a NUL character in an id, a body field or a key answers 400 naming the field', async () => {
  const byId = await trpc(deps, 'clusters.get', { id: 'a\u0000b' }, 'GET');
  expect(byId.status).toBe(400);
  expect(((await byId.json()) as TTrpcError).error.message).toMatch(/^id: may not contain a NUL/);

  const byBody = await rest(deps, 'POST', '/runs', {
    cluster: 'c',
    workload: 'w',
    tool: 'pgbench',
    git: { branch: 'main\u0000x' },
  });
  expect(byBody.status).toBe(400);
  const body = (await byBody.json()) as { issues?: unknown[] };
  // REST answers validation errors as {message:'Input validation failed', issues:[{path, message}]}.
  expect(body.issues?.[0]).toMatchObject({ path: ['git', 'branch'], message: expect.stringMatching(/NUL/) });

  const byKey = await trpc(deps, 'runs.create', {
    cluster: 'c',
    workload: 'w',
    tool: 'pgbench',
    labels: { 'k\u0000': 'v' },
  });
  expect(byKey.status).toBe(400);
  expect(((await byKey.json()) as TTrpcError).error.message).toMatch(/^labels\.k\\0: may not contain a NUL/);
  expect(await db.run.count()).toBe(0);
});

it('nulPath finds the first NUL in nested values and keys, and nothing in clean input', () => {
  expect(nulPath({ a: [1, 'x', { b: 'y\u0000' }] })).toEqual(['a', 2, 'b']);
  expect(nulPath(['ok', { 'k\u0000': 1 }])).toEqual([1, 'k\u0000']);
  expect(nulPath('\u0000')).toEqual([]);
  expect(nulPath({ a: 'clean', b: [1, null, true, { c: 'ü\u0001' }] })).toBeNull();
});
