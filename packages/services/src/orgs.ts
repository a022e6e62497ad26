import { z } from 'zod';
import {
  addMember,
  countOwners,
  createOrganization,
  findMembership,
  findOrgBySlug,
  findUserByEmail,
  listMembers,
  listOrgsForUser,
  removeMember,
  updateMemberRole,
  writeAudit,
} from '@clusterscope/db';
import { ZRole, ZSlug, type TRole } from '@clusterscope/schema';
import type { TDeps } from './deps';
import { actorOf, assertCan, type TCaller } from './caller';
import { AppError, notFound } from './errors';
import { roleCan } from './permissions';

export const ZOrgCreate = z.object({ name: z.string().trim().min(1).max(100), slug: ZSlug });

export async function createOrg(deps: TDeps, input: z.infer<typeof ZOrgCreate>, ownerUserId?: string) {
  if (await findOrgBySlug(deps.db, input.slug))
    throw new AppError('CONFLICT', `organization '${input.slug}' exists`);
  const org = await createOrganization(deps.db, input);
  if (ownerUserId) await addMember(deps.db, org.id, ownerUserId, 'owner');
  return org;
}

export async function listMyOrgs(deps: TDeps, userId: string) {
  return listOrgsForUser(deps.db, userId);
}

/** Resolves a signed-in user's membership of the org in the URL; non-members get 404 so org slugs don't leak. */
export async function resolveUserCaller(deps: TDeps, userId: string, orgSlug: string): Promise<TCaller> {
  const org = await findOrgBySlug(deps.db, orgSlug);
  const m = org && (await findMembership(deps.db, org.id, userId));
  if (!org || !m) throw notFound(`organization '${orgSlug}'`);
  return {
    kind: 'user',
    userId,
    orgId: org.id,
    orgSlug: org.slug,
    role: ZRole.catch('viewer').parse(m.role),
  };
}

export async function getMembers(deps: TDeps, caller: TCaller) {
  assertCan(caller, { cluster: ['read'] });
  const rows = await listMembers(deps.db, caller.orgId);
  return rows.map((m) => ({ id: m.id, role: m.role, createdAt: m.createdAt, user: m.user }));
}

export const ZMemberAdd = z.object({ email: z.email(), role: ZRole });

export async function addMemberByEmail(deps: TDeps, caller: TCaller, input: z.infer<typeof ZMemberAdd>) {
  assertCan(caller, { member: ['create'] });
  assertGrantable(caller, input.role);
  const user = await findUserByEmail(deps.db, input.email);
  if (!user) throw new AppError('NOT_FOUND', `no user with email ${input.email}; they must sign up first`);
  const m = await addMember(deps.db, caller.orgId, user.id, input.role);
  await writeAudit(deps.db, caller.orgId, {
    ...actorOf(caller),
    action: 'member.add',
    targetType: 'member',
    targetId: m.id,
    data: { email: input.email, role: input.role },
  });
  return m;
}

function assertGrantable(caller: TCaller, role: TRole) {
  if (role === 'owner' && !(caller.kind === 'user' && caller.role === 'owner'))
    throw new AppError('FORBIDDEN', 'only an owner can grant the owner role');
}

export async function setMemberRole(deps: TDeps, caller: TCaller, memberId: string, role: TRole) {
  assertCan(caller, { member: ['update'] });
  assertGrantable(caller, role);
  const members = await listMembers(deps.db, caller.orgId);
  const target = members.find((m) => m.id === memberId);
  if (!target) throw notFound('member');
  if (target.role === 'owner' && role !== 'owner' && (await countOwners(deps.db, caller.orgId)) <= 1)
    throw new AppError('CONFLICT', 'an organization needs at least one owner');
  await updateMemberRole(deps.db, caller.orgId, memberId, role);
  await writeAudit(deps.db, caller.orgId, {
    ...actorOf(caller),
    action: 'member.role',
    targetType: 'member',
    targetId: memberId,
    data: { role },
  });
  return { id: memberId, role };
}

export async function deleteMember(deps: TDeps, caller: TCaller, memberId: string) {
  assertCan(caller, { member: ['delete'] });
  const members = await listMembers(deps.db, caller.orgId);
  const target = members.find((m) => m.id === memberId);
  if (!target) throw notFound('member');
  if (target.role === 'owner' && (await countOwners(deps.db, caller.orgId)) <= 1)
    throw new AppError('CONFLICT', 'cannot remove the last owner');
  await removeMember(deps.db, caller.orgId, memberId);
  await writeAudit(deps.db, caller.orgId, {
    ...actorOf(caller),
    action: 'member.remove',
    targetType: 'member',
    targetId: memberId,
  });
  return { id: memberId, removed: true };
}

export { roleCan };
