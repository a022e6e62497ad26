import { z } from 'zod';
import * as repo from '@clusterscope/db';
import { ZRole, ZSlug, type TInvite, type TRole } from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import { audit, auditChange } from './audit';
import { assertCan, type TCaller } from './caller';
import { INVITATION_TTL_S } from './auth';
import { AppError, notFound } from '../core/errors';
import { invitationMail } from '../core/mail';
import { roleCan } from './permissions';

export const ZOrgCreate = z.object({ name: z.string().trim().min(1).max(100), slug: ZSlug });

/** Top-level routes an org slug would shadow (/invite/<id>, /login …). */
const RESERVED_SLUGS = new Set(['api', 'invite', 'login', 'logout', 'signup']);

export async function createOrg(deps: TDeps, input: z.infer<typeof ZOrgCreate>, ownerUserId?: string) {
  if (RESERVED_SLUGS.has(input.slug)) throw new AppError('CONFLICT', `'${input.slug}' is a reserved name`);
  if (await repo.findOrgBySlug(deps.db, input.slug))
    throw new AppError('CONFLICT', `organization '${input.slug}' exists`);
  const org = await repo.createOrganization(deps.db, input);
  if (ownerUserId) await repo.addMember(deps.db, org.id, ownerUserId, 'owner');
  return org;
}

export async function listMyOrgs(deps: TDeps, userId: string) {
  return repo.listOrgsForUser(deps.db, userId);
}

/** Resolves a signed-in user's membership of the org in the URL; non-members get 404 so org slugs don't leak. */
export async function resolveUserCaller(deps: TDeps, userId: string, orgSlug: string): Promise<TCaller> {
  return toUserCaller(userId, orgSlug, await listMyOrgs(deps, userId));
}

/** The caller of `orgSlug` among the user's organizations (`listMyOrgs`); 404 when not a member. */
export function toUserCaller(
  userId: string,
  orgSlug: string,
  mine: readonly { id: string; slug: string; role: string }[],
): TCaller {
  const org = mine.find((o) => o.slug === orgSlug);
  if (!org) throw notFound(`organization '${orgSlug}'`);
  return {
    kind: 'user',
    userId,
    orgId: org.id,
    orgSlug: org.slug,
    role: ZRole.catch('viewer').parse(org.role),
  };
}

/** Session-only guard: admin tokens manage clusters, workloads and tokens, never members. */
function assertSession(caller: TCaller): asserts caller is Extract<TCaller, { kind: 'user' }> {
  if (caller.kind !== 'user') throw new AppError('FORBIDDEN', 'members are managed by signed-in users only');
}

/** Member list with emails: sessions whose role has `member:read` (every role), or `admin` tokens. */
export async function getMembers(deps: TDeps, caller: TCaller) {
  const allowed =
    caller.kind === 'user' ? roleCan(caller.role, { member: ['read'] }) : caller.scopes.includes('admin');
  if (!allowed) throw new AppError('FORBIDDEN', 'listing members needs member:read (or an admin token)');
  const rows = await repo.listMembers(deps.db, caller.orgId);
  return rows.map((m) => ({ id: m.id, role: m.role, createdAt: m.createdAt, user: m.user }));
}

const inviteLink = (deps: TDeps, id: string) => `${deps.origin ?? ''}/invite/${id}`;

/** Pending invitations of the org (who invited whom, with the link to pass on when no mail is sent). */
export async function getInvitations(deps: TDeps, caller: TCaller) {
  assertSession(caller);
  assertCan(caller, { invitation: ['create'] });
  const rows = await repo.listPendingInvitations(deps.db, caller.orgId);
  return rows.map((i) => ({
    id: i.id,
    email: i.email,
    role: i.role ?? 'member',
    expiresAt: i.expiresAt,
    link: inviteLink(deps, i.id),
  }));
}

/** Invites an email with a role; only the person signed in with that email can accept it. */
export async function inviteMember(deps: TDeps, caller: TCaller, input: TInvite) {
  assertSession(caller);
  assertCan(caller, { invitation: ['create'] });
  assertGrantable(caller, input.role);
  const email = input.email.toLowerCase();
  const members = await repo.listMembers(deps.db, caller.orgId);
  if (members.some((m) => m.user.email.toLowerCase() === email))
    throw new AppError('CONFLICT', `${email} is already a member`);
  const inv = await repo.createInvitation(deps.db, {
    orgId: caller.orgId,
    email,
    role: input.role,
    inviterId: caller.userId,
    expiresAt: new Date(Date.now() + INVITATION_TTL_S * 1000),
  });
  const link = inviteLink(deps, inv.id);
  let mailed = false;
  if (deps.mail) {
    const org = await repo.getOrgById(deps.db, caller.orgId);
    await deps.mail.send(
      invitationMail({ to: email, orgName: org?.name ?? caller.orgSlug, role: input.role, link }),
    );
    mailed = true;
  }
  await audit(deps, caller, {
    action: 'invitation.create',
    targetId: inv.id,
    data: { email, role: input.role },
  });
  return { id: inv.id, email, role: input.role, link, mailed };
}

export async function cancelInvitation(deps: TDeps, caller: TCaller, id: string) {
  assertSession(caller);
  assertCan(caller, { invitation: ['cancel'] });
  const e = { action: 'invitation.cancel', id, what: 'invitation' } as const;
  await auditChange(deps, caller, e, repo.setInvitationStatus(deps.db, caller.orgId, id, 'canceled'));
  return { id, canceled: true };
}

/** Loads an invitation for the signed-in user it was sent to; anyone else gets 404 (ids don't leak). */
async function loadOwnInvitation(deps: TDeps, userId: string, id: string) {
  const [inv, user] = await Promise.all([
    repo.getInvitationById(deps.db, id),
    repo.findUserById(deps.db, userId),
  ]);
  if (!inv || !user || inv.email.toLowerCase() !== user.email.toLowerCase()) throw notFound('invitation');
  if (inv.status !== 'pending') throw new AppError('CONFLICT', `invitation already ${inv.status}`);
  if (inv.expiresAt.getTime() <= Date.now()) throw new AppError('CONFLICT', 'invitation expired');
  return inv;
}

/** What the invite page shows the invited user. */
export async function getMyInvitation(deps: TDeps, userId: string, id: string) {
  const inv = await loadOwnInvitation(deps, userId, id);
  return {
    id: inv.id,
    email: inv.email,
    role: inv.role ?? 'member',
    org: inv.organization,
    inviter: inv.user.name || inv.user.email,
    expiresAt: inv.expiresAt,
  };
}

export async function acceptInvitation(deps: TDeps, userId: string, id: string) {
  const inv = await loadOwnInvitation(deps, userId, id);
  const role = ZRole.catch('member').parse(inv.role);
  const m = await repo.acceptInvitationTx(deps.db, { id, orgId: inv.organizationId, userId, role });
  if (!m) throw new AppError('CONFLICT', 'invitation is no longer pending');
  await repo.writeAudit(deps.db, inv.organizationId, {
    actorType: 'user',
    actorId: userId,
    action: 'member.add',
    targetType: 'member',
    targetId: m.id,
    data: { email: inv.email, role, invitation: id },
  });
  return { org: inv.organization, role: m.role };
}

export async function rejectInvitation(deps: TDeps, userId: string, id: string) {
  const inv = await loadOwnInvitation(deps, userId, id);
  await repo.setInvitationStatus(deps.db, inv.organizationId, id, 'rejected');
  return { id, rejected: true };
}

function assertGrantable(caller: TCaller, role: TRole) {
  if (role === 'owner' && !(caller.kind === 'user' && caller.role === 'owner'))
    throw new AppError('FORBIDDEN', 'only an owner can grant the owner role');
}

/** better-auth's owner rules: only an owner changes or removes an owner; the last owner stays. */
async function loadTargetMember(deps: TDeps, caller: TCaller, memberId: string) {
  const members = await repo.listMembers(deps.db, caller.orgId);
  const target = members.find((m) => m.id === memberId);
  if (!target) throw notFound('member');
  if (target.role === 'owner' && !(caller.kind === 'user' && caller.role === 'owner'))
    throw new AppError('FORBIDDEN', 'only an owner can change or remove an owner');
  return target;
}

export async function setMemberRole(deps: TDeps, caller: TCaller, memberId: string, role: TRole) {
  assertSession(caller);
  assertCan(caller, { member: ['update'] });
  assertGrantable(caller, role);
  const target = await loadTargetMember(deps, caller, memberId);
  if (target.role === 'owner' && role !== 'owner' && (await repo.countOwners(deps.db, caller.orgId)) <= 1)
    throw new AppError('CONFLICT', 'an organization needs at least one owner');
  await repo.updateMemberRole(deps.db, caller.orgId, memberId, role);
  await audit(deps, caller, {
    action: 'member.role',
    targetId: memberId,
    data: { role },
  });
  return { id: memberId, role };
}

export async function removeMember(deps: TDeps, caller: TCaller, memberId: string) {
  assertSession(caller);
  assertCan(caller, { member: ['delete'] });
  const target = await loadTargetMember(deps, caller, memberId);
  if (target.role === 'owner' && (await repo.countOwners(deps.db, caller.orgId)) <= 1)
    throw new AppError('CONFLICT', 'cannot remove the last owner');
  await repo.removeMember(deps.db, caller.orgId, memberId);
  await audit(deps, caller, {
    action: 'member.remove',
    targetId: memberId,
  });
  return { id: memberId, removed: true };
}

export { roleCan };
