/** Tenancy fixtures for integration tests: rows as sign-up would leave them. */
import { randomUUID } from 'node:crypto';
import type { TDb } from '../src/client';

/** The organization Acme (slug `acme`) and its owner: the fields a user caller carries. */
export async function createOwnedOrg(db: TDb, email = 'o@app.test') {
  const user = await db.user.create({ data: { id: randomUUID(), name: 'o', email } });
  const org = await db.organization.create({ data: { id: randomUUID(), name: 'Acme', slug: 'acme' } });
  await db.member.create({
    data: { id: randomUUID(), organizationId: org.id, userId: user.id, role: 'owner' },
  });
  return { userId: user.id, orgId: org.id, orgSlug: 'acme', role: 'owner' as const };
}

/** A cluster of `orgId` whose agents report every `intervalS` seconds: its id. */
export async function createCluster(db: TDb, orgId: string, name: string, intervalS: number) {
  return (await db.cluster.create({ data: { organizationId: orgId, name, intervalS } })).id;
}
