/** Members, invitations, owner rules, sign-up modes and SMTP mail against real embedded PostgreSQL. */
import { createDb, findOrgBySlug, type TDb } from '@clusterscope/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dropTestDatabase } from '@clusterscope/db/testing';
import { createAuth, createUserWithPassword, type TAuth } from './auth';
import type { TCaller } from './caller';
import type { TDeps } from '../core/deps';
import { AppError } from '../core/errors';
import { startSmtpInbox } from '../core/test-env';
import { createMailer, type TMailer } from '../core/mail';
import { createOutbound } from '../core/outbound';
import {
  acceptInvitation,
  cancelInvitation,
  createOrg,
  removeMember,
  getMembers,
  inviteMember,
  rejectInvitation,
  setMemberRole,
} from './orgs';

const PW = 'correct-horse-battery';
let url: string;
let db: TDb;
const findMembership = (orgId: string, userId: string) =>
  db.member.findUnique({ where: { organizationId_userId: { organizationId: orgId, userId } } });
let deps: TDeps;
let auth: TAuth;
let orgId: string;
const users: Record<string, string> = {};
const members: Record<string, string> = {};

const outcome = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return err instanceof AppError ? err.code : `thrown: ${(err as Error).message}`;
  }
};
const as = (who: string, role: TCaller extends infer C ? (C extends { role: infer R } ? R : never) : never) =>
  ({ kind: 'user', userId: users[who], orgId, orgSlug: 'acme', role }) as TCaller;
const token = (scopes: ('read' | 'ingest' | 'runs:write' | 'admin')[]): TCaller => ({
  kind: 'token',
  tokenId: 't',
  orgId,
  orgSlug: 'acme',
  scopes,
  clusterId: null,
});

async function join(name: string, role: 'owner' | 'admin' | 'member' | 'viewer') {
  users[name] = (await createUserWithPassword(auth, { email: `${name}@acme.test`, password: PW, name })).id;
  const inv = await inviteMember(deps, as('owner1', 'owner'), { email: `${name}@acme.test`, role });
  await acceptInvitation(deps, users[name], inv.id);
  members[name] = (await findMembership(orgId, users[name]))!.id;
}

beforeAll(async () => {
  url = await createTestDatabase();
  db = createDb(url);
  deps = { db, ch: null as never, origin: 'http://app.test' };
  auth = createAuth(db, { secret: 'test-secret-0123456789abcdef', baseURL: 'http://app.test' });
  users.owner1 = (
    await createUserWithPassword(auth, { email: 'owner1@acme.test', password: PW, name: 'o' })
  ).id;
  orgId = (await createOrg(deps, { name: 'Acme', slug: 'acme' }, users.owner1)).id;
  members.owner1 = (await findMembership(orgId, users.owner1))!.id;
  await join('admin1', 'admin');
  await join('viewer1', 'viewer');
});

afterAll(async () => {
  await db?.$disconnect();
  if (url) await dropTestDatabase(url);
});

describe('owner rules', () => {
  it('an admin cannot demote, remove or grant owner', async () => {
    const admin = as('admin1', 'admin');
    expect(await outcome(setMemberRole(deps, admin, members.owner1, 'viewer'))).toBe('FORBIDDEN');
    expect(await outcome(removeMember(deps, admin, members.owner1))).toBe('FORBIDDEN');
    expect(await outcome(setMemberRole(deps, admin, members.viewer1, 'owner'))).toBe('FORBIDDEN');
    expect((await findMembership(orgId, users.owner1))?.role).toBe('owner');
  });

  it('the last owner can neither be demoted nor leave; with a second owner they can', async () => {
    const owner = as('owner1', 'owner');
    expect(await outcome(setMemberRole(deps, owner, members.owner1, 'admin'))).toBe('CONFLICT');
    expect(await outcome(removeMember(deps, owner, members.owner1))).toBe('CONFLICT');
    await join('owner2', 'owner');
    expect(await outcome(setMemberRole(deps, as('owner2', 'owner'), members.owner1, 'admin'))).toBe('ok');
    expect(await outcome(setMemberRole(deps, as('owner2', 'owner'), members.owner1, 'owner'))).toBe('ok');
  });

  it('admin tokens never change members', async () => {
    expect(await outcome(setMemberRole(deps, token(['admin']), members.viewer1, 'member'))).toBe('FORBIDDEN');
    expect(await outcome(removeMember(deps, token(['admin']), members.viewer1))).toBe('FORBIDDEN');
    expect(await outcome(inviteMember(deps, token(['admin']), { email: 'x@y.test', role: 'viewer' }))).toBe(
      'FORBIDDEN',
    );
  });
});

describe('member list', () => {
  it('is for sessions with member:read and admin tokens only', async () => {
    for (const scopes of [['ingest'], ['read'], ['runs:write']] as const)
      expect(await outcome(getMembers(deps, token([...scopes]))), scopes[0]).toBe('FORBIDDEN');
    expect(await outcome(getMembers(deps, token(['admin'])))).toBe('ok');
    const seen = await getMembers(deps, as('viewer1', 'viewer'));
    expect(seen.map((m) => m.user.email)).toContain('owner1@acme.test');
  });
});

describe('invitations', () => {
  it('only the user signed in with the invited email can accept; a stranger gets 404', async () => {
    const inv = await inviteMember(deps, as('admin1', 'admin'), {
      email: 'Colleague@Acme.test',
      role: 'member',
    });
    expect(inv.link).toBe(`http://app.test/invite/${inv.id}`);
    const stranger = await createUserWithPassword(auth, {
      email: 'stranger@evil.test',
      password: PW,
      name: 's',
    });
    expect(await outcome(acceptInvitation(deps, stranger.id, inv.id))).toBe('NOT_FOUND');
    expect(await findMembership(orgId, stranger.id)).toBeNull();
    const colleague = await createUserWithPassword(auth, {
      email: 'colleague@acme.test',
      password: PW,
      name: 'c',
    });
    expect(await acceptInvitation(deps, colleague.id, inv.id)).toMatchObject({ role: 'member' });
    expect((await findMembership(orgId, colleague.id))?.role).toBe('member');
    expect(await outcome(acceptInvitation(deps, colleague.id, inv.id))).toBe('CONFLICT');
  });

  it('better-auth refuses acceptance by another email on its own endpoint as well', async () => {
    const inv = await inviteMember(deps, as('owner1', 'owner'), { email: 'bob@acme.test', role: 'viewer' });
    const res = await auth.api.signInEmail({
      body: { email: 'stranger@evil.test', password: PW },
      asResponse: true,
    });
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const err = await auth.api
      .acceptInvitation({ body: { invitationId: inv.id }, headers: new Headers({ cookie }) })
      .then(
        () => null,
        (e: Error) => e.message,
      );
    expect(err).toMatch(/not the recipient/i);
  });

  it('canceled and rejected invitations cannot be accepted', async () => {
    const a = await inviteMember(deps, as('owner1', 'owner'), { email: 'carol@acme.test', role: 'viewer' });
    await cancelInvitation(deps, as('admin1', 'admin'), a.id);
    const carol = await createUserWithPassword(auth, { email: 'carol@acme.test', password: PW, name: 'c' });
    expect(await outcome(acceptInvitation(deps, carol.id, a.id))).toBe('CONFLICT');
    const b = await inviteMember(deps, as('owner1', 'owner'), { email: 'carol@acme.test', role: 'viewer' });
    await rejectInvitation(deps, carol.id, b.id);
    expect(await outcome(acceptInvitation(deps, carol.id, b.id))).toBe('CONFLICT');
    expect(
      await outcome(inviteMember(deps, as('viewer1', 'viewer'), { email: 'd@x.test', role: 'viewer' })),
    ).toBe('FORBIDDEN');
  });
});

describe('sign-up', () => {
  const signUp = (a: TAuth, email: string, password = PW) =>
    outcome(a.api.signUpEmail({ body: { email, password, name: 'n' } }));

  it('rejects passwords shorter than 12 characters', async () => {
    const msg = await auth.api
      .signUpEmail({ body: { email: 'short@x.test', password: '12345678', name: 'n' } })
      .then(
        () => 'created',
        (e: Error) => e.message,
      );
    expect(msg).toMatch(/password too short/i);
    expect(await signUp(auth, 'eleven@x.test', '12345678901')).not.toBe('ok');
    expect(await signUp(auth, 'twelve@x.test', '123456789012')).toBe('ok');
  });

  it('invite mode admits only emails with a pending invitation; closed admits nobody', async () => {
    const invite = createAuth(db, {
      secret: 'test-secret-0123456789abcdef',
      baseURL: 'http://a',
      signup: 'invite',
    });
    const closed = createAuth(db, {
      secret: 'test-secret-0123456789abcdef',
      baseURL: 'http://a',
      signup: 'closed',
    });
    expect(await signUp(invite, 'nobody@x.test')).not.toBe('ok');
    await inviteMember(deps, as('owner1', 'owner'), { email: 'dave@acme.test', role: 'viewer' });
    expect(await signUp(closed, 'dave@acme.test')).not.toBe('ok');
    expect(await signUp(invite, 'dave@acme.test')).toBe('ok');
    expect(await db.user.count({ where: { email: { in: ['nobody@x.test'] } } })).toBe(0);
  });
});

describe('mail over SMTP', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpInbox>>;
  let mailer: TMailer;
  const inbox = () => smtp.inbox;

  beforeAll(async () => {
    smtp = await startSmtpInbox();
    mailer = createMailer({
      smtpUrl: smtp.url,
      from: 'cs@app.test',
      outbound: createOutbound({ allow: '127.0.0.1/32' }),
    })!;
  });
  afterAll(() => smtp.close());

  const waitFor = async (to: string) => {
    for (let i = 0; i < 100 && !inbox().some((m) => m.to === to); i++)
      await new Promise((r) => setTimeout(r, 50));
    return inbox().find((m) => m.to === to)?.body ?? '';
  };

  it('sends the verification email on sign-up, and its link verifies the address', async () => {
    const a = createAuth(db, { secret: 'test-secret-0123456789abcdef', baseURL: 'http://app.test', mailer });
    await a.api.signUpEmail({ body: { email: 'erin@acme.test', password: PW, name: 'e' } });
    const body = (await waitFor('erin@acme.test')).replace(/=\r?\n/g, '');
    const link = body.match(/http:\/\/app\.test\/api\/auth\/verify-email\?token=3D([\w.-]+)|token=([\w.-]+)/);
    expect(link).not.toBeNull();
    const tokenValue = link![1] ?? link![2];
    await a.api.verifyEmail({ query: { token: tokenValue } });
    expect((await db.user.findUnique({ where: { email: 'erin@acme.test' } }))?.emailVerified).toBe(true);
  });

  it('sends the invitation email with the accept link', async () => {
    const inv = await inviteMember({ ...deps, mail: mailer }, as('owner1', 'owner'), {
      email: 'frank@acme.test',
      role: 'viewer',
    });
    expect(inv.mailed).toBe(true);
    expect((await waitFor('frank@acme.test')).replace(/=\r?\n/g, '')).toContain(`/invite/${inv.id}`);
    expect(await findOrgBySlug(db, 'acme')).not.toBeNull();
  });
});
