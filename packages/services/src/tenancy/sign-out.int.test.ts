/** Sign-out ends the session at once: a replay of the old cookies is refused (real embedded PostgreSQL). */
import { createDb, type TDb } from '@clusterscope/db';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, dropTestDatabase } from '@clusterscope/db/testing';
import { createAuth, createUserWithPassword, type TAuth } from './auth';

let url: string;
let db: TDb;
let auth: TAuth;

beforeAll(async () => {
  url = await createTestDatabase();
  db = createDb(url);
  auth = createAuth(db, { secret: 'test-secret-0123456789abcdef', baseURL: 'http://app.test' });
  await createUserWithPassword(auth, { email: 'a@acme.test', password: 'correct-horse-battery', name: 'a' });
});

afterAll(async () => {
  await db?.$disconnect();
  if (url) await dropTestDatabase(url);
});

/** Every cookie a response sets, as one Cookie header (what a browser, or a thief, would send back). */
const cookiesOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .filter((c) => !c.endsWith('='))
    .join('; ');

it('a request with the cookies from before sign-out is refused', async () => {
  const signIn = await auth.handler(
    new Request('http://app.test/api/auth/sign-in/email', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://app.test' },
      body: JSON.stringify({ email: 'a@acme.test', password: 'correct-horse-battery' }),
    }),
  );
  expect(signIn.status).toBe(200);
  const cookie = cookiesOf(signIn);
  const headers = new Headers({ cookie });
  expect((await auth.api.getSession({ headers }))?.user.email).toBe('a@acme.test');

  const out = await auth.handler(
    new Request('http://app.test/api/auth/sign-out', {
      method: 'POST',
      headers: { cookie, origin: 'http://app.test' },
    }),
  );
  expect(out.status).toBe(200);
  expect(await auth.api.getSession({ headers: new Headers({ cookie }) })).toBeNull();
});
