/**
 * "Send test" limits hold across web instances: two service instances (separate module state, separate
 * PostgreSQL clients) on one database share one count per channel and per person, and refuse past it with
 * TOO_MANY_REQUESTS and a Retry-After; a stand-in receiver counts what was sent.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createDb, type TDb } from '@clusterscope/db';
import { openTempClickHouse } from '@clusterscope/tsdb/testing';
import { createTestDatabase } from '@clusterscope/db/testing';
import type { TCaller } from '../tenancy/caller';
import type { TDeps } from '../core/deps';
import { createOutbound } from '../core/outbound';
import { generateSecretKey, loadSecretKeys } from '../core/secrets';
import { createChannel } from './api';
import * as instanceA from './deliveries';

type TSend = typeof instanceA.sendTestNotification;
let dbA: TDb;
let dbB: TDb;
let depsA: TDeps;
let depsB: TDeps;
let sendB: TSend;
let cleanupCh: () => Promise<void>;
let receiver: Server;
let hits = 0;
let url = '';
let orgId = '';
let orgSlug = '';

beforeAll(async () => {
  receiver = createServer((req, res) => {
    hits++;
    req.resume().on('end', () => res.end('ok'));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const pg = await createTestDatabase();
  dbA = createDb(pg);
  // Another URL for the same database: createDb keeps one client per URL, the second instance has its own.
  dbB = createDb(`${pg}${pg.includes('?') ? '&' : '?'}application_name=instance-b`);
  expect(dbB).not.toBe(dbA);
  const ch = await openTempClickHouse();
  cleanupCh = ch.cleanup;
  // The receiver is on loopback: allowed as an operator would with OUTBOUND_ALLOW.
  // One SECRETS_KEY, as every instance of a deployment has.
  const secrets = loadSecretKeys(generateSecretKey());
  depsA = { db: dbA, ch: ch.ch, secrets, outbound: createOutbound({ allow: '127.0.0.1/32' }) };
  // The second instance: the same code loaded afresh, so nothing kept in module state is shared.
  vi.resetModules();
  sendB = ((await import('./deliveries')) as typeof instanceA).sendTestNotification;
  const outboundB = (await import('../core/outbound')) as { createOutbound: typeof createOutbound };
  depsB = { db: dbB, ch: ch.ch, secrets, outbound: outboundB.createOutbound({ allow: '127.0.0.1/32' }) };
  expect(sendB).not.toBe(instanceA.sendTestNotification);
  orgSlug = `lim-${randomUUID().slice(0, 8)}`;
  orgId = (await dbA.organization.create({ data: { id: randomUUID(), name: 'L', slug: orgSlug } })).id;
}, 120_000);
afterAll(async () => {
  await cleanupCh?.();
  await dbA?.$disconnect();
  await dbB?.$disconnect();
  await new Promise((r) => receiver.close(r));
});

async function admin(): Promise<TCaller> {
  const u = await dbA.user.create({ data: { id: randomUUID(), name: 'a', email: `${randomUUID()}@l.test` } });
  await dbA.member.create({ data: { id: randomUUID(), organizationId: orgId, userId: u.id, role: 'admin' } });
  return { kind: 'user', userId: u.id, orgId, orgSlug, role: 'admin' };
}

const channel = (caller: TCaller) =>
  createChannel(depsA, caller, {
    name: `c-${randomUUID().slice(0, 8)}`,
    kind: 'webhook',
    config: { url },
    secret: { hmacSecret: 'k' },
  });

/** Sends alternately through instance A and B; 'ok' or the error code with its Retry-After. */
async function alternate(caller: TCaller, ids: string[]) {
  const out: string[] = [];
  let retryAfterS: number | undefined;
  for (const [i, id] of ids.entries()) {
    const [send, deps] = i % 2 === 0 ? [instanceA.sendTestNotification, depsA] : [sendB, depsB];
    out.push(
      await send(deps, caller, id).then(
        (d) => (d.status === 'sent' ? 'ok' : `not sent: ${d.lastError}`),
        (e: { code?: string; details?: { retryAfterS?: number } }) => {
          retryAfterS = e.details?.retryAfterS;
          return e.code ?? String(e);
        },
      ),
    );
  }
  return { out, retryAfterS };
}

it('per channel: five a minute across both instances, then 429 with Retry-After', async () => {
  hits = 0;
  const caller = await admin();
  const c = await channel(caller);
  const { out, retryAfterS } = await alternate(caller, Array(8).fill(c.id));
  expect(out).toEqual([...Array(5).fill('ok'), ...Array(3).fill('TOO_MANY_REQUESTS')]);
  expect(retryAfterS).toBeGreaterThanOrEqual(1);
  expect(retryAfterS).toBeLessThanOrEqual(60);
  expect(hits).toBe(5);
});

it('per person: twenty a minute across channels and both instances', async () => {
  hits = 0;
  const caller = await admin();
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push(...Array(4).fill((await channel(caller)).id));
  const { out } = await alternate(caller, ids);
  expect(out.filter((o) => o === 'ok')).toHaveLength(20);
  expect(out.slice(20)).toEqual(Array(4).fill('TOO_MANY_REQUESTS'));
  expect(hits).toBe(20);
});
