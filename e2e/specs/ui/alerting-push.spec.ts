import { createDecipheriv, createECDH, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';
import { ensurePushCa } from '../../fixtures/push-ca';
import { PORT } from '../../playwright.config';
import {
  expectAckedByUser,
  getAlert,
  makeAlertingCluster,
  postNode,
  rpc,
  waitForAlert,
} from '../../fixtures/alerting';

const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();

/** RFC 8291 (Web Push encryption) + RFC 8188 aes128gcm, one record: what a browser does with a push. */
function decryptPush(body: Buffer, ua: { ecdh: ReturnType<typeof createECDH>; auth: Buffer }): string {
  const salt = body.subarray(0, 16);
  const idlen = body[20];
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  const uaPublic = ua.ecdh.getPublicKey();
  const ecdhSecret = ua.ecdh.computeSecret(asPublic);
  const prkKey = hmac(ua.auth, ecdhSecret);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic, Buffer.from([1])]);
  const ikm = hmac(prkKey, keyInfo);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12);
  const d = createDecipheriv('aes-128-gcm', cek, nonce);
  d.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const plain = Buffer.concat([d.update(ciphertext.subarray(0, ciphertext.length - 16)), d.final()]);
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  expect(plain[end], 'last-record padding delimiter').toBe(2);
  return plain.subarray(0, end).toString('utf8');
}

/**
 * The whole push path in real Chromium: "Enable notifications" on the on-call page (permission, service
 * worker, subscription stored on the server) → a DEAD node fires → the server's web-push sender POSTs the
 * encrypted message to the subscription's endpoint (a push-service stand-in here) → the test decrypts it as
 * the push service would hand it over and delivers it to the registered service worker through the DevTools
 * protocol → the notification shows with an Acknowledge action → that action acks the alert on the server.
 *
 * Two stand-ins, both forced by this machine: Chromium's own push service is FCM (offline here, and
 * incognito contexts refuse push), so PushManager.subscribe answers with an endpoint on the local stand-in and
 * keys the test holds; and the DevTools protocol cannot press a notification button, so the service worker's
 * click path (the same function the notificationclick listener calls) is run through a postMessage.
 */
test('push: subscribe, deliver through CDP, notification shown, its Acknowledge action acks on the server', async ({
  page,
  context,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const origin = new URL(baseURL!).origin;
  await context.grantPermissions(['notifications'], { origin });

  // Push-service stand-in: receives what the server's web-push sender POSTs.
  const pushes: { body: Buffer; headers: http.IncomingHttpHeaders }[] = [];
  // Push services speak HTTPS only; the e2e server trusts this certificate (playwright.config.ts).
  const ca = ensurePushCa(PORT);
  const tls = { key: fs.readFileSync(ca.key), cert: fs.readFileSync(ca.cert) };
  const service = https.createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      pushes.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  const endpoint = `https://127.0.0.1:${(service.address() as AddressInfo).port}/push/${randomBytes(8).toString('hex')}`;

  // The user agent's keys (RFC 8291 ua_public/auth), known to the test so it can decrypt like a browser.
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  const sub = {
    endpoint,
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: auth.toString('base64url'),
  };
  await page.addInitScript((s) => {
    const b64 = (v: string) =>
      Uint8Array.from(atob(v.replace(/-/g, '+').replace(/_/g, '/')), (ch) => ch.charCodeAt(0)).buffer;
    let current: PushSubscription | null = null;
    const make = (key: ArrayBuffer | null) =>
      ({
        endpoint: s.endpoint,
        expirationTime: null,
        options: { applicationServerKey: key, userVisibleOnly: true },
        getKey: (name: string) => b64(name === 'auth' ? s.auth : s.p256dh),
        toJSON: () => ({
          endpoint: s.endpoint,
          expirationTime: null,
          keys: { p256dh: s.p256dh, auth: s.auth },
        }),
        unsubscribe: async () => ((current = null), true),
      }) as unknown as PushSubscription;
    PushManager.prototype.subscribe = async function (opts?: PushSubscriptionOptionsInit) {
      const k = opts?.applicationServerKey;
      // The page passes a Uint8Array (push.ts); keep a copy of its bytes like the browser does.
      current = make(
        k && typeof k !== 'string' ? (new Uint8Array(k as Uint8Array).slice().buffer as ArrayBuffer) : null,
      );
      return current;
    };
    PushManager.prototype.getSubscription = async () => current;
  }, sub);

  const cdp = await context.newCDPSession(page);
  const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => registrations.push(...e.registrations));
  await cdp.send('ServiceWorker.enable');

  try {
    await signInPatiently(page);
    const c = await makeAlertingCluster(page.request, 'push');
    // Route critical alerts of this cluster to a push channel, and send at once (no group wait).
    const channel = await rpc<{ id: string }>(page.request, 'alerting.createChannel', {
      name: `push-${c.id}`,
      kind: 'push',
      config: { userIds: [] },
      secret: {},
    });
    await rpc(page.request, 'alerting.setRouting', {
      clusterId: c.id,
      routes: [
        { severity: 'critical', channelIds: [channel.id], escalateAfterMin: null, escalationChannelIds: [] },
      ],
    });
    const routing = await rpc<{ grouping: Record<string, number> }>(
      page.request,
      'alerting.routing',
      {},
      'GET',
    );
    await rpc(page.request, 'alerting.setRouting', {
      clusterId: null,
      routes: (await rpc<{ routes: unknown[] }>(page.request, 'alerting.routing', {}, 'GET')).routes,
      grouping: { ...routing.grouping, groupWaitS: 0 },
    });

    // Enable notifications on the on-call page: service worker registered, subscription stored.
    await page.goto('/demo/oncall');
    await page.getByRole('button', { name: 'Enable notifications' }).click();
    await expect(page.getByTestId('push-toggle')).toHaveAttribute('data-state', 'on');
    const reg = await page.evaluate(async () => {
      const r = await navigator.serviceWorker.ready;
      return { scope: r.scope, script: r.active?.scriptURL };
    });
    expect(reg).toEqual({ scope: `${origin}/`, script: `${origin}/service-worker.js` });

    // A node goes DEAD: the evaluator fires, the sender pushes to the stand-in.
    await postNode(page.request, c, 5, 'DEAD');
    const alert = await waitForAlert(page.request, c.id, 5);
    await expect.poll(() => pushes.length, { timeout: 45_000 }).toBeGreaterThan(0);
    const push = pushes[0];
    expect(push.headers['content-encoding']).toBe('aes128gcm');
    expect(push.headers.authorization).toMatch(/^vapid t=/);
    const payload = JSON.parse(decryptPush(push.body, { ecdh, auth }));
    expect(payload).toMatchObject({ status: 'firing', org: 'demo', alertIds: [alert.id] });

    // Deliver it to the registered service worker through the DevTools protocol. CDP does not say
    // whether the worker took it (a worker that is still starting drops it), so it is sent again
    // while no notification shows; the same tag replaces, never adds.
    const deliver = async () => {
      const live = registrations.filter((r) => !r.isDeleted && r.scopeURL === `${origin}/`).at(-1);
      expect(live, 'service worker registration seen over CDP').toBeTruthy();
      await cdp.send('ServiceWorker.deliverPushMessage', {
        origin,
        registrationId: live!.registrationId,
        data: JSON.stringify(payload),
      });
    };
    await deliver();
    const shown = async () =>
      page.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
          title: n.title,
          tag: n.tag,
          actions: ((n as unknown as { actions: { action: string; title: string }[] }).actions ?? []).map(
            (a) => a.title,
          ),
        })),
      );
    await expect
      .poll(
        async () => {
          const now = await shown();
          if (!now.some((n) => n.tag === payload.tag)) await deliver();
          return now;
        },
        { intervals: [500, 1000, 2000] },
      )
      .toContainEqual({ title: payload.title, tag: payload.tag, actions: ['Acknowledge'] });

    // Press "Acknowledge": the service worker POSTs the ack with the session cookie, no page involved.
    expect((await getAlert(page.request, alert.id)).ackedAt).toBeNull();
    const ok = await page.evaluate(
      (tag) =>
        new Promise<boolean>((resolve) => {
          navigator.serviceWorker.addEventListener('message', (e) => {
            if (e.data?.type === 'notification-click' && e.data.tag === tag) resolve(e.data.ok === true);
          });
          void navigator.serviceWorker.ready.then((r) =>
            r.active!.postMessage({ type: 'notification-click', tag, action: 'ack' }),
          );
        }),
      payload.tag,
    );
    expect(ok).toBe(true);
    await expectAckedByUser(page.request, alert.id);
    // The notification now says so, without an Acknowledge button.
    await expect
      .poll(shown)
      .toContainEqual({ title: `Acknowledged: ${payload.title}`, tag: payload.tag, actions: [] });
  } finally {
    service.closeAllConnections();
    service.close();
  }
});
