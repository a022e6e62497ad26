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

export async function findMembership(db: TDb, orgId: string, userId: string) {
  return db.member.findUnique({ where: { organizationId_userId: { organizationId: orgId, userId } } });
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

export async function countUsers(db: TDb) {
  return db.user.count();
}
