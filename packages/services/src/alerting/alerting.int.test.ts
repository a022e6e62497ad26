/**
 * On-call alerting end to end with real parts: embedded PostgreSQL, chDB, a local webhook receiver (HMAC
 * checked), a real SMTP server receiving what nodemailer sends, and a push-endpoint stand-in that decrypts
 * what web-push sends (RFC 8291 aes128gcm) with node:crypto. The clock is simulated (passed as `now`).
 */
import { createDecipheriv, createECDH, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer, globalAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDb, type TDb } from '@clusterscope/db';
import type { TNodeStatusSample, TPushPayload, TWebhookPayload } from '@clusterscope/schema';
import { createWriter, type TWriter } from '@clusterscope/tsdb';
import { nodeSample, openTempClickHouse } from '@clusterscope/tsdb/testing';
import { createOwnedOrg, createTestDatabase } from '@clusterscope/db/testing';
import type { TCaller } from '../tenancy/caller';
import type { TDeps } from '../core/deps';
import { startSmtpInbox } from '../core/test-env';
import { createMailer } from '../core/mail';
import { createOutbound } from '../core/outbound';
import {
  createChannel,
  ackAlertInstances,
  createSilence,
  listAlertInstances,
  setRouting,
  subscribePush,
} from './api';
import { generateVapidKeys, signBody } from './channels';
import { deliverDue, notifyBenchmarkAlert, sendTestNotification } from './deliveries';
import { createEvaluatorMemo, evaluateAlerts } from './evaluator';
import { notifyAlerts } from './notify';

const node = (id: number, ts: number, liveness: TNodeStatusSample['liveness']) =>
  nodeSample(id, ts, { liveness });

let db: TDb;
let deps: TDeps;
let writer: TWriter;
let cleanupCh: () => Promise<void>;
let caller: TCaller;
let clusterId: string;

const HMAC = 'hook-secret-123';
type THit = { path: string; body: string; headers: IncomingMessage['headers'] };
const hits: THit[] = [];
let http: Server;
let https: Server;
let base = '';
let pushBase = '';
let inbox: { to: string; body: string }[] = [];
let smtp: Awaited<ReturnType<typeof startSmtpInbox>> | undefined;

// The browser side of a push subscription: a P-256 key pair and an auth secret.
const ua = createECDH('prime256v1');
ua.generateKeys();
const uaAuth = randomBytes(16);

const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();

/** RFC 8291 + RFC 8188 (aes128gcm, one record): what a browser does with a push message body. */
function decryptPush(body: Buffer): string {
  const salt = body.subarray(0, 16);
  const idlen = body[20]!;
  const asPublic = body.subarray(21, 21 + idlen);
  const ct = body.subarray(21 + idlen);
  const ecdhSecret = ua.computeSecret(asPublic);
  const prkKey = hmac(uaAuth, ecdhSecret);
  const keyInfo = Buffer.concat([
    Buffer.from('WebPush: info\0'),
    ua.getPublicKey(),
    asPublic,
    Buffer.from([1]),
  ]);
  const ikm = hmac(prkKey, keyInfo);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01', 'binary')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01', 'binary')).subarray(0, 12);
  const d = createDecipheriv('aes-128-gcm', cek, nonce);
  d.setAuthTag(ct.subarray(ct.length - 16));
  const plain = Buffer.concat([d.update(ct.subarray(0, ct.length - 16)), d.final()]);
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  expect(plain[end]).toBe(2); // last-record delimiter
  return plain.subarray(0, end).toString('utf8');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  db = createDb(await createTestDatabase());
  const ch = await openTempClickHouse();
  cleanupCh = ch.cleanup;
  writer = createWriter(ch.ch, { maxDelayMs: 0 });

  const receive: RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const buf = Buffer.concat(chunks);
      const body = req.url === '/push' ? decryptPush(buf) : buf.toString('utf8');
      hits.push({ path: req.url ?? '', body, headers: req.headers });
      const ok = () => res.writeHead(req.url === '/push' ? 201 : 200).end('ok');
      if (req.url === '/slow') setTimeout(ok, 300);
      else ok();
    });
  };
  http = createServer(receive);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  // Push services speak HTTPS only (web-push uses node:https): a self-signed stand-in, trusted for this process.
  const dir = mkdtempSync(join(tmpdir(), 'cs-push-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' }); // prettier-ignore
  const cert = readFileSync(join(dir, 'cert.pem'));
  https = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, receive);
  rmSync(dir, { recursive: true, force: true });
  globalAgent.options.ca = cert;
  await new Promise<void>((r) => https.listen(0, '127.0.0.1', r));
  pushBase = `https://127.0.0.1:${(https.address() as { port: number }).port}`;

  smtp = await startSmtpInbox();
  inbox = smtp.inbox;

  const v = generateVapidKeys();
  // The receivers are on loopback: allowed here the way an operator would (OUTBOUND_ALLOW).
  const outbound = createOutbound({ allow: '127.0.0.1/32' });
  outbound.httpsAgent.options.ca = cert;
  deps = {
    db,
    ch: ch.ch,
    outbound,
    mail: createMailer({ smtpUrl: smtp.url, from: 'alerts@app.test', outbound }),
    origin: 'http://app.test',
    vapid: { publicKey: v.publicKey, privateKey: v.privateKey, subject: 'mailto:oncall@app.test' },
  };

  const owner = await createOwnedOrg(db, 'oncall@app.test');
  clusterId = (
    await db.cluster.create({ data: { organizationId: owner.orgId, name: 'prod-east', intervalS: 10 } })
  ).id;
  caller = { kind: 'user', ...owner };
}, 120_000);

afterAll(async () => {
  await writer?.close();
  await new Promise<void>((r) => (http ? http.close(() => r()) : r()));
  await new Promise<void>((r) => (https ? https.close(() => r()) : r()));
  await smtp?.close();
  await cleanupCh?.();
  await db?.$disconnect();
});

describe('on-call alerting', () => {
  let channelIds: string[] = [];
  const webhooks = () =>
    hits.filter((h) => h.path === '/hook').map((h) => JSON.parse(h.body) as TWebhookPayload);
  const pushes = () => hits.filter((h) => h.path === '/push').map((h) => JSON.parse(h.body) as TPushPayload);
  const ntfys = () => hits.filter((h) => h.path === '/ntfy');
  const slacks = () => hits.filter((h) => h.path === '/slack');

  it('sets up webhook, slack, ntfy, email and push channels routed for critical alerts; "send test" reaches the webhook', async () => {
    const mk = (input: unknown) => createChannel(deps, caller, input);
    const hook = await mk({
      name: 'hook',
      kind: 'webhook',
      config: { url: `${base}/hook` },
      secret: { hmacSecret: HMAC },
    });
    expect(hook.secret).toEqual({ hmacSecret: '***' });
    expect(JSON.stringify(hook)).not.toContain(HMAC);
    const slack = await mk({ name: 'slack', kind: 'slack', secret: { url: `${base}/slack` } });
    const ntfy = await mk({ name: 'ntfy', kind: 'ntfy', config: { url: `${base}/ntfy` } });
    const mail = await mk({ name: 'mail', kind: 'email', config: { to: ['pager@app.test'] } });
    const push = await mk({ name: 'push', kind: 'push', config: {} });
    channelIds = [hook.id, slack.id, ntfy.id, mail.id, push.id];
    await subscribePush(deps, caller, {
      endpoint: `${pushBase}/push`,
      keys: { p256dh: ua.getPublicKey().toString('base64url'), auth: uaAuth.toString('base64url') },
    });
    await setRouting(deps, caller, {
      routes: [{ severity: 'critical', channelIds }],
      grouping: { groupWaitS: 0, groupIntervalS: 1, repeatIntervalS: 14_400 },
    });

    const d = await sendTestNotification(deps, caller, hook.id);
    expect(d).toMatchObject({ status: 'sent', attempts: 1, lastError: null });
    const h = hits.find((x) => x.path === '/hook')!;
    expect(h.headers['x-clusterscope-signature']).toBe(signBody(HMAC, h.body));
    hits.length = 0;
  });

  it("a test send racing the leader's delivery pass reaches the channel once", async () => {
    const slow = await createChannel(deps, caller, {
      name: 'slow',
      kind: 'webhook',
      config: { url: `${base}/slow` },
      secret: { hmacSecret: HMAC },
    });
    const sending = sendTestNotification(deps, caller, slow.id);
    // The request is in flight (the receiver answers after 300 ms) while the leader sends what is due.
    await vi.waitFor(() => expect(hits.some((h) => h.path === '/slow')).toBe(true));
    await deliverDue(deps);
    expect(await sending).toMatchObject({ status: 'sent', attempts: 1 });
    expect(hits.filter((h) => h.path === '/slow')).toHaveLength(1);
    hits.length = 0;
  });

  it('a 30 s flap under for: 1m notifies nobody; node 2 down, silent, back → one firing and one resolved per channel', async () => {
    const memo = createEvaluatorMemo();
    let t = Date.now() + 1000;
    let k = 0;
    const down = new Set<number>();
    const silent = new Set<number>();
    /** Advances the simulated clock by 5 s: agents sample every 10 s, the evaluator runs every 15 s. */
    async function tick() {
      t += 5000;
      k++;
      if (k % 2 === 0) {
        const samples = [1, 2, 3]
          .filter((n) => !silent.has(n))
          .map((n) => node(n, t, down.has(n) ? 'DEAD' : 'LIVE'));
        await writer.write(caller.orgId, clusterId, `b-${k}`, samples);
      }
      if (k % 3 === 0) {
        await evaluateAlerts(deps, { now: new Date(t), memo });
        await notifyAlerts(deps, new Date(t));
      }
    }
    const run = async (seconds: number) => {
      for (let i = 0; i < seconds / 5; i++) await tick();
    };

    await run(60); // healthy
    down.add(2);
    await run(30); // the flap
    down.delete(2);
    await run(120);
    expect(hits).toEqual([]);
    expect(inbox).toEqual([]);

    down.add(2);
    await run(120);
    // Firing: exactly one notification per channel.
    await sleep(300); // SMTP delivery is asynchronous on the server side
    expect(webhooks().map((w) => [w.status, w.title])).toEqual([['firing', '1 node down in prod-east']]);
    const firing = webhooks()[0]!;
    expect(firing.alerts).toHaveLength(1);
    expect(firing.alerts[0]).toMatchObject({
      status: 'firing',
      labels: { alertname: 'Node down', severity: 'critical', cluster: 'prod-east', node: '2' },
      endsAt: '0001-01-01T00:00:00Z',
    });
    const hookHit = hits.find((h) => h.path === '/hook')!;
    expect(hookHit.headers['x-clusterscope-signature']).toBe(signBody(HMAC, hookHit.body));
    expect(slacks()).toHaveLength(1);
    expect(JSON.parse(slacks()[0]!.body).text).toContain('<http://app.test/acme/clusters/');
    expect(ntfys()).toHaveLength(1);
    expect(ntfys()[0]!.headers.priority).toBe('5');
    expect(inbox).toHaveLength(1);
    expect(inbox[0]!.to).toBe('pager@app.test');
    expect(inbox[0]!.body).toContain('1 node down in prod-east');
    const pushLog = await db.delivery.findMany({ where: { channelId: channelIds[4] } });
    expect(pushLog.map((d) => [d.status, d.lastError])).toEqual([['sent', null]]);
    expect(pushes()).toHaveLength(1);
    const alertId = firing.alerts[0]!.fingerprint;
    expect(pushes()[0]).toMatchObject({
      title: '1 node down in prod-east',
      alertIds: [alertId],
      ackUrl: '/api/v1/alerting/ack',
      org: 'acme',
      status: 'firing',
    });
    const auth = String(hits.find((h) => h.path === '/push')!.headers.authorization);
    expect(auth).toMatch(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=/);
    expect(auth).toContain(deps.vapid!.publicKey);

    // The agent of node 2 goes silent: STALE never counts as healthy, nothing resolves.
    silent.add(2);
    down.delete(2);
    await run(120);
    expect(webhooks()).toHaveLength(1);
    const [a] = await listAlertInstances(deps, caller, { state: 'firing', severity: 'critical' });
    expect(a).toMatchObject({ id: alertId, state: 'firing', labels: { node: '2' } });

    // Back: one resolved notification per channel.
    silent.delete(2);
    await run(30);
    await sleep(300);
    expect(webhooks().map((w) => w.status)).toEqual(['firing', 'resolved']);
    expect(webhooks()[1]!.title).toBe('Resolved: 1 node down in prod-east');
    expect(webhooks()[1]!.alerts[0]!.status).toBe('resolved');
    expect(slacks()).toHaveLength(2);
    expect(ntfys()).toHaveLength(2);
    expect(inbox).toHaveLength(2);
    expect(pushes().map((p) => p.status)).toEqual(['firing', 'resolved']);
    await run(60);
    expect(webhooks()).toHaveLength(2);
  }, 120_000);

  it('silences suppress notifications (alert still listed, marked silenced); ack stops repeats', async () => {
    hits.length = 0;
    let t = Date.now() + 3_600_000;
    const memo = createEvaluatorMemo();
    const step = async (liveness: TNodeStatusSample['liveness']) => {
      t += 15_000;
      await writer.write(
        caller.orgId,
        clusterId,
        randomUUID(),
        [1, 2, 3].map((n) => node(n, t, n === 3 ? liveness : 'LIVE')),
      );
      await evaluateAlerts(deps, { now: new Date(t), memo });
      await notifyAlerts(deps, new Date(t));
    };
    await createSilence(deps, caller, {
      clusterId,
      nodeId: 3,
      endsAt: new Date(t + 600_000),
      comment: 'maintenance',
    });
    for (let i = 0; i < 8; i++) await step('DEAD');
    expect(hits).toEqual([]);
    const [a] = await listAlertInstances(deps, caller, { state: 'firing' });
    expect(a).toMatchObject({ labels: { node: '3' }, silenced: true });

    // After the silence ends, it notifies; repeat_interval repeats until acked.
    t += 600_000;
    await step('DEAD');
    expect(webhooks()).toHaveLength(1);
    await db.alertSettings.update({ where: { organizationId: caller.orgId }, data: { repeatIntervalS: 60 } });
    for (let i = 0; i < 5; i++) await step('DEAD'); // 75 s > repeat 60 s
    expect(webhooks()).toHaveLength(2);
    const acked = await ackAlertInstances(deps, caller, [a!.id]);
    expect(acked[0]).toMatchObject({ ackedBy: `user:${(caller as { userId: string }).userId}` });
    for (let i = 0; i < 10; i++) await step('DEAD');
    expect(webhooks()).toHaveLength(2);
  }, 120_000);

  it('retries a failing channel with backoff and logs the error', async () => {
    const bad = await createChannel(deps, caller, {
      name: 'broken',
      kind: 'webhook',
      config: { url: 'http://127.0.0.1:9/nothing' },
      secret: { hmacSecret: 'x' },
    });
    const d = await sendTestNotification(deps, caller, bad.id);
    expect(d.status).toBe('pending');
    expect(d.attempts).toBe(1);
    expect(d.lastError).toBeTruthy();
    expect(d.nextAttemptAt.getTime() - Date.now()).toBeGreaterThan(5000);
  });
});

describe('benchmark threshold alerts', () => {
  it('go through the same routing (the org warning channels)', async () => {
    hits.length = 0;
    const channels = await db.notificationChannel.findMany({
      where: { organizationId: caller.orgId, name: 'hook' },
    });
    await setRouting(deps, caller, { routes: [{ severity: 'warning', channelIds: [channels[0]!.id] }] });
    const n = await notifyBenchmarkAlert(deps, caller.orgId, {
      id: 'alert-1',
      runId: 'run-1',
      clusterId,
      metric: 'tps',
      message: 'tps 900 vs baseline 1000 on main',
      value: 900,
    });
    expect(n).toBe(1);
    const w = hits.filter((h) => h.path === '/hook').map((h) => JSON.parse(h.body) as TWebhookPayload);
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({ title: 'Benchmark regression: tps', org: 'acme' });
    expect(w[0]!.alerts[0]!.annotations.summary).toBe('tps 900 vs baseline 1000 on main');
  });
});
