/**
 * Issue 36 §1: the server cannot be aimed at its own network. A canary listens on loopback (plain HTTP and a
 * TLS port for push) and counts every TCP connection. An app instance started without OUTBOUND_ALLOW refuses
 * to save channels or push subscriptions aimed there (400 naming the field), and rows that aim there anyway
 * (as saved by an older version, written here with psql) are refused at send time: a "Send test", an alert
 * delivery picked up by the dispatcher, and a push. Nothing reaches the canary. The suite's own server, whose
 * OUTBOUND_ALLOW names 127.0.0.1, reaches the same canary: the control that the canary can be reached.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { postAuth } from '../../fixtures/auth';
import { launch, waitFor, waitHealthy, type TLaunched } from '../../fixtures/launch';
import { ensurePushCa } from '../../fixtures/push-ca';
import { BASE_URL, DATA_DIR, PORT } from '../../playwright.config';
import { psql as psqlAt } from '../../fixtures/psql';

const OTHER_PORT = PORT + 1000;
const OTHER = `http://127.0.0.1:${OTHER_PORT}`;
const ORG = 'demo';

let app: TLaunched;
let http: Server;
let tls: TlsServer;
const connections: string[] = [];
let httpPort = 0;
let tlsPort = 0;

test.describe.configure({ mode: 'serial' });
test.setTimeout(240_000);

test.beforeAll(async () => {
  test.setTimeout(240_000);
  http = createServer((req, res) => res.writeHead(200).end('ok'));
  http.on('connection', () => connections.push('http'));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  httpPort = (http.address() as AddressInfo).port;
  const ca = ensurePushCa(PORT);
  tls = createTlsServer({ key: fs.readFileSync(ca.key), cert: fs.readFileSync(ca.cert) }, (s) => s.end());
  tls.on('connection', () => connections.push('tls'));
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
  tlsPort = (tls.address() as AddressInfo).port;
  app = launch(
    { OUTBOUND_ALLOW: '', ALERT_EVAL_INTERVAL_S: '1', NODE_EXTRA_CA_CERTS: ca.cert },
    { port: OTHER_PORT },
  );
  await waitHealthy(app);
});

test.afterAll(async () => {
  app?.child.kill('SIGTERM');
  await app?.exited;
  await new Promise((r) => http?.close(r));
  await new Promise((r) => tls?.close(r));
  if (app) fs.rmSync(app.dataDir, { recursive: true, force: true });
});

/** Signs the launched instance's (or the suite's) demo admin in; returns its request context. */
async function admin(
  playwright: { request: { newContext(o: object): Promise<APIRequestContext> } },
  base: string,
  dataDir: string,
) {
  const txt = fs.readFileSync(path.join(dataDir, 'admin-login.txt'), 'utf8');
  const get = (k: string) => new RegExp(`^${k}: (.+)$`, 'm').exec(txt)?.[1]?.trim() ?? '';
  const ctx = await playwright.request.newContext({ baseURL: base });
  const res = await postAuth(ctx, '/api/auth/sign-in/email', {
    data: { email: get('email'), password: get('password') },
    headers: { origin: base },
  });
  expect(res.status(), await res.text()).toBe(200);
  return ctx;
}

const call = async (ctx: APIRequestContext, proc: string, input: unknown) => {
  const res = await ctx.post(`/api/trpc/${proc}`, { headers: { 'x-org': ORG }, data: input });
  const body = (await res.json()) as { result?: { data: unknown }; error?: { message: string } };
  return {
    status: res.status(),
    data: body.result?.data as Record<string, unknown>,
    error: body.error?.message,
  };
};

/** SQL against the launched instance's embedded PostgreSQL. */
const psql = (sql: string) => psqlAt(app.dataDir, sql).trim();

const id = () => `ssrf${randomBytes(6).toString('hex')}`;
const KEYS = {
  p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
  auth: 'tBHItJI5svbpez7KI4CCXg',
};

test('without OUTBOUND_ALLOW: saving a channel or a push subscription aimed inward is a 400 naming the field', async ({
  playwright,
}) => {
  const ctx = await admin(playwright, OTHER, app.dataDir);
  const cases: [string, object, object, string][] = [
    ['webhook', { url: `http://127.0.0.1:${httpPort}/hook` }, { hmacSecret: 'k' }, 'config.url'],
    ['webhook', { url: `http://2130706433:${httpPort}/hook` }, { hmacSecret: 'k' }, 'config.url'],
    ['webhook', { url: `http://0x7f.1:${httpPort}/hook` }, { hmacSecret: 'k' }, 'config.url'],
    ['webhook', { url: `http://localhost:${httpPort}/hook` }, { hmacSecret: 'k' }, 'config.url'],
    ['webhook', { url: 'http://169.254.169.254/latest/meta-data/' }, { hmacSecret: 'k' }, 'config.url'],
    ['ntfy', { url: `http://[::ffff:127.0.0.1]:${httpPort}/topic` }, {}, 'config.url'],
    ['slack', {}, { url: `http://[::1]:${httpPort}/slack` }, 'secret.url'],
  ];
  for (const [kind, config, secret, field] of cases) {
    const r = await call(ctx, 'alerting.createChannel', { name: id(), kind, config, secret });
    expect(r.status, `${kind} ${JSON.stringify(config)}`).toBe(400);
    expect(r.error).toMatch(new RegExp(`^${field.replace('.', '\\.')}: .*OUTBOUND_ALLOW`));
  }
  const push = await call(ctx, 'alerting.subscribePush', {
    endpoint: `https://127.0.0.1:${tlsPort}/push/${id()}`,
    keys: KEYS,
  });
  expect(push.status).toBe(400);
  expect(push.error).toMatch(/^endpoint: .*loopback/);
  expect(connections).toEqual([]);
  await ctx.dispose();
});

test('without OUTBOUND_ALLOW: rows aimed inward are refused at send time (test send, alert delivery, push)', async ({
  playwright,
}) => {
  const ctx = await admin(playwright, OTHER, app.dataDir);
  const org = psql(`SELECT id FROM organization WHERE slug = '${ORG}'`);
  const user = psql(
    `SELECT "userId" FROM member WHERE "organizationId" = '${org}' AND role = 'owner' LIMIT 1`,
  );
  const hook = id();
  const pushChannel = id();
  psql(
    `INSERT INTO "NotificationChannel" (id, "organizationId", name, kind, config, enabled, "createdAt", "updatedAt") VALUES
     ('${hook}', '${org}', '${hook}', 'webhook', '{"url":"http://127.0.0.1:${httpPort}/hook"}', true, now(), now()),
     ('${pushChannel}', '${org}', '${pushChannel}', 'push', '{"userIds":[]}', true, now(), now())`,
  );
  psql(
    `INSERT INTO "PushSubscription" (id, "organizationId", "userId", endpoint, p256dh, auth) VALUES
     ('${id()}', '${org}', '${user}', 'https://127.0.0.1:${tlsPort}/push/x', '${KEYS.p256dh}', '${KEYS.auth}')`,
  );

  const test1 = await call(ctx, 'alerting.testChannel', { id: hook });
  expect(test1.status).toBe(200);
  expect(test1.data.lastError).toBe('destination refused: not a public address');

  const push = await call(ctx, 'alerting.testChannel', { id: pushChannel });
  expect(push.status).toBe(200);
  expect(push.data.lastError).toBe('push failed: push endpoint refused: not https on a public address');

  // An alert notification queued for the dispatcher (the alerting thread sends it within a cycle).
  const delivery = id();
  psql(
    `INSERT INTO "Delivery" (id, "organizationId", "channelId", kind, title, payload, status, "nextAttemptAt", "createdAt")
     VALUES ('${delivery}', '${org}', '${hook}', 'firing', 'node down', '{"status":"firing","title":"node down","org":"${ORG}","orgId":"${org}","clusterId":null,"clusterName":null,"url":"${OTHER}","groupKey":"g","alerts":[]}', 'pending', now(), now())`,
  );
  let row = '';
  await waitFor(
    () => {
      row = psql(
        `SELECT attempts || '|' || coalesce("lastError", '') FROM "Delivery" WHERE id = '${delivery}'`,
      );
      return row.startsWith('1|');
    },
    60_000,
    'the dispatcher to attempt the delivery',
  );
  expect(row).toBe('1|destination refused: not a public address');
  expect(connections).toEqual([]);
  await ctx.dispose();
});

test('the suite server, whose OUTBOUND_ALLOW names 127.0.0.1, reaches the same canary', async ({
  playwright,
}) => {
  const ctx = await admin(playwright, BASE_URL, DATA_DIR);
  const c = await call(ctx, 'alerting.createChannel', {
    name: id(),
    kind: 'webhook',
    config: { url: `http://127.0.0.1:${httpPort}/hook` },
    secret: { hmacSecret: 'k' },
  });
  expect(c.status, c.error).toBe(200);
  const sent = await call(ctx, 'alerting.testChannel', { id: c.data.id });
  expect(sent.data).toMatchObject({ status: 'sent', lastError: null });
  expect(connections).toEqual(['http']);
  // Metadata stays refused even there.
  const meta = await call(ctx, 'alerting.createChannel', {
    name: id(),
    kind: 'webhook',
    config: { url: 'http://169.254.169.254/latest/meta-data/' },
    secret: { hmacSecret: 'k' },
  });
  expect(meta.status).toBe(400);
  await ctx.dispose();
});
