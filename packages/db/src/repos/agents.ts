import type { TDb } from '../client';
import { Prisma } from '../generated/prisma/client';

type THeartbeat = {
  version: string;
  capabilities: string[];
  outboxBytes: number;
  outboxEvictions: number;
  uptimeS: number;
  seenAt: Date;
  /** Advertised job limits; null clears them (jobs off), undefined leaves them. */
  jobLimits?: { allowedDirs: string[]; allowedHosts: string[]; maxFileBytes: number } | null;
  /** Each input's collection state; undefined leaves the stored one (an agent that does not report it). */
  inputs?: Prisma.InputJsonValue;
};

const heartbeatData = (input: THeartbeat) => ({
  ...(input.jobLimits === undefined
    ? {}
    : { jobLimits: input.jobLimits === null ? Prisma.DbNull : input.jobLimits }),
  ...(input.inputs === undefined ? {} : { inputs: input.inputs }),
  version: input.version,
  capabilities: input.capabilities,
  outboxBytes: BigInt(Math.round(input.outboxBytes)),
  outboxEvictions: input.outboxEvictions,
  uptimeS: Math.round(input.uptimeS),
  lastSeenAt: input.seenAt,
});

/** An enrolled agent's heartbeat: updates its own row; the cluster stays the enrolled one. */
export async function updateAgentHeartbeat(db: TDb, agentId: string, input: THeartbeat) {
  return db.agent.update({ where: { id: agentId }, data: heartbeatData(input) });
}

/**
 * A legacy (non-agent) ingest token's heartbeat, by agent name: creates the agent in the token's cluster,
 * or updates it while it is not enrolled and belongs to that cluster (or none yet). Never touches an
 * enrolled agent and never moves an agent to another cluster. Null when the heartbeat was ignored.
 */
export async function upsertLegacyAgentHeartbeat(
  db: TDb,
  orgId: string,
  input: THeartbeat & { name: string; clusterId: string },
) {
  const data = heartbeatData(input);
  const where = { organizationId_name: { organizationId: orgId, name: input.name } };
  const existing = await db.agent.findUnique({ where, include: { credential: { select: { id: true } } } });
  if (!existing)
    return db.agent
      .create({ data: { organizationId: orgId, name: input.name, clusterId: input.clusterId, ...data } })
      .catch(() => null); // a concurrent first heartbeat won
  if (existing.credential) return null;
  if (existing.clusterId && existing.clusterId !== input.clusterId) return null;
  const res = await db.agent.updateMany({
    where: { id: existing.id, credential: null, OR: [{ clusterId: null }, { clusterId: input.clusterId }] },
    data: { ...data, clusterId: input.clusterId },
  });
  return res.count > 0 ? existing : null;
}

const credentialSelect = {
  select: { id: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true },
} as const;

export async function listAgents(db: TDb, orgId: string) {
  return db.agent.findMany({
    where: { organizationId: orgId },
    orderBy: { name: 'asc' },
    include: { cluster: { select: { id: true, name: true } }, credential: credentialSelect },
  });
}

/** Agents of an org heard from since `since`, with their reported input states (cluster status). */
export async function listAgentInputs(db: TDb, orgId: string, since: Date, clusterId?: string) {
  return db.agent.findMany({
    where: {
      organizationId: orgId,
      lastSeenAt: { gte: since },
      NOT: { inputs: { equals: Prisma.DbNull } },
      ...(clusterId ? { clusterId } : {}),
    },
    select: { name: true, clusterId: true, lastSeenAt: true, inputs: true },
  });
}

export async function getAgent(db: TDb, orgId: string, id: string) {
  return db.agent.findFirst({ where: { id, organizationId: orgId } });
}

export async function getAgentById(db: TDb, id: string) {
  return db.agent.findUnique({ where: { id } });
}

/**
 * Enrolls an agent: creates it (or binds the existing one) in `clusterId` and stores its credential, a
 * token with scopes ['ingest'] bound to the agent and its cluster. A revoked earlier credential is
 * replaced; an active one makes this return `{ conflict }`. With `fromTokenId`, that existing token
 * becomes the credential (its hash, so the agent's configured token keeps working).
 */
export async function enrollAgent(
  db: TDb,
  orgId: string,
  input: {
    name: string;
    clusterId: string;
    token:
      | { fromTokenId: string }
      | { name: string; prefix: string; hash: string; createdById: string | null };
  },
) {
  return db.$transaction(async (tx) => {
    const existing = await tx.agent.findUnique({
      where: { organizationId_name: { organizationId: orgId, name: input.name } },
      include: { credential: true },
    });
    if (existing?.credential && !existing.credential.revokedAt)
      return { conflict: 'active credential' as const, agent: existing };
    if (existing?.credential) await tx.apiToken.delete({ where: { id: existing.credential.id } });
    const agent = existing
      ? await tx.agent.update({ where: { id: existing.id }, data: { clusterId: input.clusterId } })
      : await tx.agent.create({
          data: { organizationId: orgId, name: input.name, clusterId: input.clusterId, capabilities: [] },
        });
    const bind = { agentId: agent.id, clusterId: input.clusterId, scopes: ['ingest'] };
    const token =
      'fromTokenId' in input.token
        ? await tx.apiToken.update({ where: { id: input.token.fromTokenId }, data: bind })
        : await tx.apiToken.create({ data: { organizationId: orgId, ...input.token, ...bind } });
    const { hash: _hash, ...safe } = token;
    void _hash;
    return { agent, token: safe };
  });
}

/** Revokes the agent's credential; false when it has none active. */
export async function revokeAgentCredential(db: TDb, orgId: string, agentId: string) {
  const res = await db.apiToken.updateMany({
    where: { organizationId: orgId, agentId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  return res.count > 0;
}
