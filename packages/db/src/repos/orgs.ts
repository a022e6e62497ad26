import { randomUUID } from 'node:crypto';
import type { TDb } from '../client';

export async function createOrganization(db: TDb, input: { name: string; slug: string }) {
  return db.organization.create({ data: { id: randomUUID(), name: input.name, slug: input.slug } });
}

export async function findOrgBySlug(db: TDb, slug: string) {
  return db.organization.findUnique({ where: { slug } });
}

export async function getOrgById(db: TDb, id: string) {
  return db.organization.findUnique({ where: { id } });
}

export async function listOrgsForUser(db: TDb, userId: string) {
  const rows = await db.member.findMany({
    where: { userId },
    include: { organization: true },
    orderBy: { createdAt: 'asc' },
  });
  return rows.map((m) => ({ ...m.organization, role: m.role }));
}

export async function listMembers(db: TDb, orgId: string) {
  return db.member.findMany({
    where: { organizationId: orgId },
    include: { user: { select: { id: true, name: true, email: true } } },
    orderBy: { createdAt: 'asc' },
  });
}

export async function addMember(db: TDb, orgId: string, userId: string, role: string) {
  return db.member.upsert({
    where: { organizationId_userId: { organizationId: orgId, userId } },
    create: { id: randomUUID(), organizationId: orgId, userId, role },
    update: { role },
  });
}

export async function updateMemberRole(db: TDb, orgId: string, memberId: string, role: string) {
  const res = await db.member.updateMany({ where: { id: memberId, organizationId: orgId }, data: { role } });
  return res.count > 0;
}

export async function removeMember(db: TDb, orgId: string, memberId: string) {
  const res = await db.member.deleteMany({ where: { id: memberId, organizationId: orgId } });
  return res.count > 0;
}

export async function countOwners(db: TDb, orgId: string) {
  return db.member.count({ where: { organizationId: orgId, role: 'owner' } });
}

export async function findUserByEmail(db: TDb, email: string) {
  return db.user.findUnique({ where: { email: email.toLowerCase() } });
}

export async function findUserById(db: TDb, id: string) {
  return db.user.findUnique({ where: { id }, select: { id: true, email: true, name: true } });
}

/** Invitations live in better-auth's `invitation` table, so its own organization endpoints see the same rows. */
export async function createInvitation(
  db: TDb,
  input: { orgId: string; email: string; role: string; inviterId: string; expiresAt: Date },
) {
  return db.invitation.create({
    data: {
      id: randomUUID(),
      organizationId: input.orgId,
      email: input.email.toLowerCase(),
      role: input.role,
      status: 'pending',
      expiresAt: input.expiresAt,
      inviterId: input.inviterId,
    },
  });
}

export async function listPendingInvitations(db: TDb, orgId: string) {
  return db.invitation.findMany({
    where: { organizationId: orgId, status: 'pending', expiresAt: { gt: new Date() } },
    orderBy: { createdAt: 'asc' },
  });
}

export async function getInvitationById(db: TDb, id: string) {
  return db.invitation.findUnique({
    where: { id },
    include: {
      organization: { select: { id: true, name: true, slug: true } },
      user: { select: { email: true, name: true } },
    },
  });
}

export async function hasPendingInvitation(db: TDb, email: string) {
  const n = await db.invitation.count({
    where: { email: email.toLowerCase(), status: 'pending', expiresAt: { gt: new Date() } },
  });
  return n > 0;
}

/** Moves a pending invitation of the org to a final status; false when it was not pending. */
export async function setInvitationStatus(
  db: TDb,
  orgId: string,
  id: string,
  status: 'accepted' | 'rejected' | 'canceled',
) {
  const res = await db.invitation.updateMany({
    where: { id, organizationId: orgId, status: 'pending' },
    data: { status },
  });
  return res.count > 0;
}

/** Accepting: the membership and the status change commit together, once. */
export async function acceptInvitationTx(
  db: TDb,
  inv: { id: string; orgId: string; userId: string; role: string },
) {
  return db.$transaction(async (tx) => {
    const res = await tx.invitation.updateMany({
      where: { id: inv.id, organizationId: inv.orgId, status: 'pending' },
      data: { status: 'accepted' },
    });
    if (res.count === 0) return null;
    const existing = await tx.member.findUnique({
      where: { organizationId_userId: { organizationId: inv.orgId, userId: inv.userId } },
    });
    if (existing) return existing;
    return tx.member.create({
      data: { id: randomUUID(), organizationId: inv.orgId, userId: inv.userId, role: inv.role },
    });
  });
}

/** Whether CI may name a cluster that does not exist yet (it is then created). */
export async function getAutoCreateClusters(db: TDb, orgId: string): Promise<boolean> {
  const o = await db.organization.findUnique({ where: { id: orgId }, select: { autoCreateClusters: true } });
  return o?.autoCreateClusters ?? false;
}

export async function setAutoCreateClusters(db: TDb, orgId: string, enabled: boolean) {
  await db.organization.update({ where: { id: orgId }, data: { autoCreateClusters: enabled } });
}
