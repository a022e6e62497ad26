import type { TDb } from '../client';
import { Prisma } from '../generated/prisma/client';

export async function upsertAgentHeartbeat(
  db: TDb,
  orgId: string,
  input: {
    name: string;
    clusterId: string | null;
    version: string;
    capabilities: string[];
    outboxBytes: number;
    outboxEvictions: number;
    uptimeS: number;
    seenAt: Date;
    /** Advertised job limits; null clears them (jobs off), undefined leaves them. */
    jobLimits?: { allowedDirs: string[]; allowedHosts: string[]; maxFileBytes: number } | null;
  },
) {
  const data = {
    ...(input.jobLimits === undefined
      ? {}
      : { jobLimits: input.jobLimits === null ? Prisma.DbNull : input.jobLimits }),
    clusterId: input.clusterId,
    version: input.version,
    capabilities: input.capabilities,
    outboxBytes: BigInt(Math.round(input.outboxBytes)),
    outboxEvictions: input.outboxEvictions,
    uptimeS: Math.round(input.uptimeS),
    lastSeenAt: input.seenAt,
  };
  return db.agent.upsert({
    where: { organizationId_name: { organizationId: orgId, name: input.name } },
    create: { organizationId: orgId, name: input.name, ...data },
    update: data,
  });
}

export async function listAgents(db: TDb, orgId: string) {
  return db.agent.findMany({
    where: { organizationId: orgId },
    orderBy: { name: 'asc' },
    include: { cluster: { select: { id: true, name: true } } },
  });
}

export async function getAgent(db: TDb, orgId: string, id: string) {
  return db.agent.findFirst({ where: { id, organizationId: orgId } });
}
