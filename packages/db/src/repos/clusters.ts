import type { TDb } from '../client';

export async function listClusters(db: TDb, orgId: string) {
  return db.cluster.findMany({
    where: { organizationId: orgId },
    orderBy: [{ demo: 'asc' }, { name: 'asc' }],
  });
}

export async function getCluster(db: TDb, orgId: string, id: string) {
  return db.cluster.findFirst({ where: { id, organizationId: orgId } });
}

export async function findClusterByName(db: TDb, orgId: string, name: string) {
  return db.cluster.findUnique({ where: { organizationId_name: { organizationId: orgId, name } } });
}

export async function createCluster(
  db: TDb,
  orgId: string,
  input: { name: string; description?: string; demo?: boolean; intervalS?: number },
) {
  return db.cluster.create({ data: { organizationId: orgId, ...input } });
}

export async function updateCluster(
  db: TDb,
  orgId: string,
  id: string,
  input: { name?: string; description?: string; intervalS?: number },
) {
  const res = await db.cluster.updateMany({ where: { id, organizationId: orgId }, data: input });
  return res.count > 0 ? getCluster(db, orgId, id) : null;
}

export async function deleteCluster(db: TDb, orgId: string, id: string) {
  const res = await db.cluster.deleteMany({ where: { id, organizationId: orgId } });
  return res.count > 0;
}
