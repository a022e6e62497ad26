import type { TDb } from '../client';

export async function createApiToken(
  db: TDb,
  orgId: string,
  input: {
    name: string;
    prefix: string;
    hash: string;
    scopes: string[];
    clusterId?: string | null;
    createdById?: string | null;
    expiresAt?: Date | null;
  },
) {
  return db.apiToken.create({ data: { organizationId: orgId, ...input } });
}

export async function findApiTokenByHash(db: TDb, hash: string) {
  return db.apiToken.findUnique({ where: { hash }, include: { organization: true } });
}

export async function listApiTokens(db: TDb, orgId: string) {
  return db.apiToken.findMany({
    // Agent credentials are listed with their agents (Settings → Agents), not as API tokens.
    where: { organizationId: orgId, agentId: null },
    orderBy: { createdAt: 'desc' },
    omit: { hash: true },
  });
}

/** A token of the org by id, by its visible prefix (`cs_xxxxxxxx`) or by its hash. */
export async function findApiToken(
  db: TDb,
  orgId: string,
  q: { id?: string; prefix?: string; hash?: string },
) {
  return db.apiToken.findFirst({ where: { organizationId: orgId, ...q }, omit: { hash: true } });
}

export async function revokeApiToken(db: TDb, orgId: string, id: string) {
  const res = await db.apiToken.updateMany({
    where: { id, organizationId: orgId, revokedAt: null, agentId: null },
    data: { revokedAt: new Date() },
  });
  return res.count > 0;
}

export async function touchApiToken(db: TDb, id: string, at: Date) {
  await db.apiToken.update({ where: { id }, data: { lastUsedAt: at } });
}
