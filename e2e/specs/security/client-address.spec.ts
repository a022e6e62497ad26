/**
 * Issue #16 §3: better-auth's rate limiter keys by the client's address, never by one shared bucket.
 * An app instance of its own runs with TRUST_PROXY=1 (one named proxy in front). Clients come from
 * different loopback addresses (127.0.0.x, the socket peer) or, through the "proxy", with different
 * X-Forwarded-For entries. One client's failed sign-ins must not lock out another, and the server must
 * never log better-auth's "could not determine a client IP" fallback warning.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { PORT } from '../../playwright.config';
import { healthy, launch, waitFor, type TLaunched } from '../../fixtures/launch';

const APP_PORT = PORT + 6;
const ORIGIN = `http://127.0.0.1:${APP_PORT}`;
const PASSWORD = 'correct-horse-battery-staple';
let app: TLaunched | undefined;

/** POSTs JSON to the app from `localAddress` (the socket peer the server sees), optionally via a proxy's XFF. */
function post(
  pathname: string,
  body: unknown,
  from: { localAddress: string; xff?: string },
): Promise<number> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: APP_PORT,
        path: pathname,
        method: 'POST',
        localAddress: from.localAddress,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(data),
          origin: ORIGIN,
          ...(from.xff && { 'x-forwarded-for': from.xff }),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const signIn = (email: string, password: string, from: { localAddress: string; xff?: string }) =>
  post('/api/auth/sign-in/email', { email, password }, from);

test.beforeAll(async () => {
  test.setTimeout(240_000);
  app = launch({ TRUST_PROXY: '1' }, { port: APP_PORT });
  await waitFor(
    async () => {
      if (app!.child.exitCode !== null) throw new Error(`app exited during start-up:\n${app!.output()}`);
      return healthy(APP_PORT);
    },
    200_000,
    `app on port ${APP_PORT}`,
  );
});

test.afterAll(async () => {
  if (app && app.child.exitCode === null) {
    app.child.kill('SIGINT');
    await Promise.race([app.exited, new Promise((r) => setTimeout(r, 30_000))]);
  }
  if (app) fs.rmSync(app.dataDir, { recursive: true, force: true });
});

test("one client's failed sign-ins do not lock out another (socket address and trusted X-Forwarded-For)", async () => {
  test.setTimeout(120_000);
  const txt = fs.readFileSync(path.join(app!.dataDir, 'admin-login.txt'), 'utf8');
  const admin = /^email: (.+)$/m.exec(txt)![1].trim();
  const adminPassword = /^password: (.+)$/m.exec(txt)![1].trim();
  const other = `other-${Date.now()}@e2e.test`;
  expect(
    await post(
      '/api/auth/sign-up/email',
      { email: other, password: PASSWORD, name: 'Other' },
      { localAddress: '127.0.0.9' },
    ),
  ).toBe(200);

  // Socket peers: 127.0.0.2 exhausts better-auth's sign-in allowance (3 per 10 s per address).
  const a = { localAddress: '127.0.0.2' };
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push(await signIn(other, `wrong-${i}`, a));
  expect(statuses).toEqual([401, 401, 401, 429]);
  // 127.0.0.3 is another client: its own failures are 401, and it still signs in.
  const b = { localAddress: '127.0.0.3' };
  expect(await signIn(admin, 'wrong-password', b)).toBe(401);
  expect(await signIn(admin, adminPassword, b)).toBe(200);

  // Behind the trusted proxy (all from 127.0.0.4): the client is the X-Forwarded-For entry it appended.
  const viaProxy = (xff: string) => ({ localAddress: '127.0.0.4', xff });
  const proxied: number[] = [];
  for (let i = 0; i < 4; i++) proxied.push(await signIn(other, `wrong-${i}`, viaProxy('198.51.100.7')));
  expect(proxied).toEqual([401, 401, 401, 429]);
  // A client-forged entry left of the proxy's own does not change who the client is.
  expect(await signIn(admin, adminPassword, viaProxy('203.0.113.1, 198.51.100.7'))).toBe(429);
  // Another client behind the same proxy is not locked out.
  expect(await signIn(admin, 'wrong-password', viaProxy('198.51.100.8'))).toBe(401);
  expect(await signIn(admin, adminPassword, viaProxy('198.51.100.8'))).toBe(200);

  expect(app!.output()).not.toContain('could not determine a client IP');
});
