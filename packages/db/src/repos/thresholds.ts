import type { TDb } from '../client';

export type TThresholdRow = {
  workloadId: string;
  metric: string;
  test: string;
  limit: number;
  minSamples: number;
  windowSize: number;
  branch: string;
};

export async function listThresholds(db: TDb, orgId: string, workloadId?: string) {
  return db.threshold.findMany({
    where: { organizationId: orgId, ...(workloadId ? { workloadId } : {}) },
    orderBy: [{ workloadId: 'asc' }, { metric: 'asc' }],
  });
}

export async function getThreshold(db: TDb, orgId: string, id: string) {
  return db.threshold.findFirst({ where: { id, organizationId: orgId } });
}

/** Creates or replaces the threshold of (workload, metric). */
export async function upsertThreshold(db: TDb, orgId: string, input: TThresholdRow) {
  const { workloadId, metric, ...rest } = input;
  return db.threshold.upsert({
    where: { workloadId_metric: { workloadId, metric } },
    create: { organizationId: orgId, workloadId, metric, ...rest },
    update: rest,
  });
}

export async function deleteThreshold(db: TDb, orgId: string, id: string) {
  const res = await db.threshold.deleteMany({ where: { id, organizationId: orgId } });
  return res.count > 0;
}
