import { randomBytes } from 'node:crypto';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { postAuth } from '../../fixtures/auth';
import { PORT } from '../../playwright.config';

const ORIGIN = `http://127.0.0.1:${PORT}`;
const uid = () => randomBytes(4).toString('hex');
const PASSWORD = 'correct-horse-battery-staple';

/** Signs up a user in a throw-away context (sign-up signs in; the attempts below must run signed out). */
async function newUser(playwright: { request: { newContext(o: object): Promise<APIRequestContext> } }) {
  const ctx = await playwright.request.newContext({ baseURL: ORIGIN });
  const email = `limit-${uid()}@e2e.test`;
  const res = await postAuth(ctx, '/api/auth/sign-up/email', {
    data: { email, password: PASSWORD, name: 'Limit Test' },
    headers: { origin: ORIGIN },
  });
  expect(res.status(), await res.text()).toBe(200);
  await ctx.dispose();
  return email;
}

const formSignIn = (request: APIRequestContext, email: string, password: string, headers = {}) =>
  request.post('/login', {
    form: { email, password },
    headers: { origin: ORIGIN, accept: 'text/html', ...headers },
    maxRedirects: 0,
  });

const jsonSignIn = (request: APIRequestContext, email: string, password: string, headers = {}) =>
  request.post('/api/auth/sign-in/email', {
    data: { email, password },
    headers: { origin: ORIGIN, ...headers },
  });

test('the /login form action is limited per account and address, with 429 + Retry-After', async ({
  playwright,
}) => {
  const request = await playwright.request.newContext({ baseURL: ORIGIN });
  const victim = await newUser(playwright);
  const other = await newUser(playwright);
  for (let i = 0; i < 5; i++)
    expect((await formSignIn(request, victim, 'wrong-password-1')).status()).toBe(400);
  const blocked = await formSignIn(request, victim, PASSWORD);
  expect(blocked.status()).toBe(429);
  expect(Number(blocked.headers()['retry-after'])).toBeGreaterThan(0);
  // A spoofed X-Forwarded-For (no TRUST_PROXY) is not a new client.
  const spoofed = await formSignIn(request, victim, PASSWORD, { 'x-forwarded-for': `203.0.113.${i8()}` });
  expect(spoofed.status()).toBe(429);
  // The JSON endpoint shares the counter: every path is limited.
  const viaJson = await jsonSignIn(request, victim, PASSWORD);
  expect(viaJson.status()).toBe(429);
  expect(viaJson.headers()['retry-after']).toBeTruthy();
  // Another account from the same client is not locked out.
  expect((await formSignIn(request, other, PASSWORD)).status()).toBe(303);
  await request.dispose();
});

function i8() {
  return 1 + Math.floor(Math.random() * 250);
}

test('/api/auth/sign-in/email: changing X-Forwarded-For does not get a fresh bucket', async ({
  playwright,
}) => {
  const request = await playwright.request.newContext({ baseURL: ORIGIN });
  const email = await newUser(playwright);
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) {
    const res = await jsonSignIn(request, email, `wrong-${i}`, { 'x-forwarded-for': `198.51.100.${i + 1}` });
    statuses.push(res.status());
  }
  // better-auth allows 3 sign-in attempts per 10 s per client address, whatever the header says. Other
  // sign-ins from 127.0.0.1 in the same window (the test above, other workers) share that bucket, so the
  // spec asserts the shape: at most 3 attempts get through, and once limited every later one stays limited.
  const first = statuses.indexOf(429);
  expect(first, statuses.join(',')).toBeGreaterThanOrEqual(0);
  expect(first).toBeLessThanOrEqual(3);
  expect(
    statuses.slice(0, first).every((s) => s === 401),
    statuses.join(','),
  ).toBe(true);
  expect(
    statuses.slice(first).every((s) => s === 429),
    statuses.join(','),
  ).toBe(true);
  await request.dispose();
});
