import type { TDb } from '../client';

/** Workloads set to run on a build change, with the clusters they watch (the change pass). */
export async function listChangeWatches(db: TDb) {
  return db.workload.findMany({
    where: { changeClusterIds: { isEmpty: false } },
    select: {
      id: true,
      organizationId: true,
      changeClusterIds: true,
      organization: { select: { slug: true } },
    },
  });
}

/** Node id → build tag each node of the cluster last reported; null before the first sighting. */
export async function getClusterBuilds(db: TDb, clusterId: string): Promise<Record<string, string> | null> {
  const row = await db.clusterBuild.findUnique({ where: { clusterId } });
  return row ? (row.builds as Record<string, string>) : null;
}

export async function saveClusterBuilds(
  db: TDb,
  orgId: string,
  clusterId: string,
  builds: Record<string, string>,
): Promise<void> {
  await db.clusterBuild.upsert({
    where: { clusterId },
    create: { clusterId, organizationId: orgId, builds },
    update: { builds },
  });
}

/** The cluster's change that has not started its runs yet, if any. */
export async function findPendingChange(db: TDb, orgId: string, clusterId: string) {
  return db.clusterChange.findFirst({
    where: { organizationId: orgId, clusterId, firedAt: null },
    orderBy: { detectedAt: 'desc' },
  });
}

export async function createClusterChange(
  db: TDb,
  orgId: string,
  input: { clusterId: string; fromTag: string; toTag: string; nodeIds: number[]; detectedAt: Date },
) {
  return db.clusterChange.create({ data: { organizationId: orgId, ...input } });
}

export async function updateClusterChange(
  db: TDb,
  id: string,
  data: { toTag?: string; nodeIds?: number[]; waiting?: string | null; firedAt?: Date; runIds?: string[] },
) {
  return db.clusterChange.update({ where: { id }, data });
}

export async function getClusterChange(db: TDb, orgId: string, id: string) {
  return db.clusterChange.findFirst({ where: { id, organizationId: orgId } });
}

/** A cluster's build changes, newest first. */
export async function listClusterChanges(db: TDb, orgId: string, clusterId: string, take = 20) {
  return db.clusterChange.findMany({
    where: { organizationId: orgId, clusterId },
    orderBy: { detectedAt: 'desc' },
    take,
  });
}

/** Marks a change fired at `at` unless another pass did: true for the one pass that starts its runs. */
export async function claimChangeFire(db: TDb, id: string, at: Date): Promise<boolean> {
  return (
    (await db.clusterChange.updateMany({ where: { id, firedAt: null }, data: { firedAt: at } })).count > 0
  );
}
