import type { Prisma } from '../generated/prisma/client';
import type { TDb } from '../client';

export interface TAuditEntry {
  actorType: 'user' | 'token' | 'system';
  actorId?: string | null;
  action: string;
  targetType?: string;
  targetId?: string;
  data?: Prisma.InputJsonValue;
}

export async function writeAudit(db: TDb, orgId: string, e: TAuditEntry) {
  return db.auditLog.create({ data: { organizationId: orgId, ...e, data: e.data ?? {} } });
}

export async function listAudit(db: TDb, orgId: string, opts: { limit: number; action?: string }) {
  return db.auditLog.findMany({
    where: { organizationId: orgId, ...(opts.action ? { action: opts.action } : {}) },
    orderBy: { createdAt: 'desc' },
    take: opts.limit,
  });
}
