import * as repo from '@clusterscope/db';
import { ZAgentEnroll, type TAgentEnroll } from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import { audit } from '../tenancy/audit';
import { actorOf, assertCan, type TCaller } from '../tenancy/caller';
import { AppError, notFound } from '../core/errors';
import { generateToken, hashToken } from '../tenancy/tokens';

import { canSeeCluster } from '../tenancy/access';
import { toInputStates } from '../health/cluster-status';

export async function listAgents(deps: TDeps, caller: TCaller) {
  assertCan(caller, { cluster: ['read'] });
  const rows = await repo.listAgents(deps.db, caller.orgId);
  return rows
    .filter((a) => canSeeCluster(caller, a.clusterId))
    .map((a) => ({ ...a, outboxBytes: Number(a.outboxBytes), inputs: toInputStates(a.inputs) }));
}

/** Re-exported for the admin CLI (apps/web/scripts/admin.ts). */
export { agentConfigSnippet } from '@clusterscope/schema';

/**
 * Enrolls an agent in a cluster and issues its credential (an `ingest` token bound to the agent and the
 * cluster; the raw value is returned once). `fromToken` (raw `cs_…` value, id or `cs_xxxxxxxx` prefix)
 * turns an existing ingest token into the credential instead, so an installed agent keeps its config.
 */
export async function enrollAgent(
  deps: TDeps,
  orgId: string,
  input: TAgentEnroll & { fromToken?: string },
  by: { caller?: TCaller; userId?: string | null } = {},
) {
  if (by.caller) assertCan(by.caller, { token: ['create'] });
  const q = ZAgentEnroll.parse(input);
  const cluster =
    (await repo.getCluster(deps.db, orgId, q.cluster)) ??
    (await repo.findClusterByName(deps.db, orgId, q.cluster));
  if (!cluster) throw notFound(`cluster '${q.cluster}'`);
  const fresh = generateToken();
  let fromTokenId: string | null = null;
  if (input.fromToken) {
    const ref = input.fromToken.trim();
    const old =
      (await repo.findApiToken(deps.db, orgId, { hash: hashToken(ref) })) ??
      (await repo.findApiToken(deps.db, orgId, { prefix: ref })) ??
      (await repo.findApiToken(deps.db, orgId, { id: ref }));
    if (!old) throw notFound(`fromToken: token '${ref.slice(0, 11)}…'`);
    if (old.revokedAt || (old.expiresAt && old.expiresAt < new Date()))
      throw new AppError('CONFLICT', 'fromToken: that token is revoked or expired');
    if (!old.scopes.includes('ingest'))
      throw new AppError(
        'BAD_REQUEST',
        "fromToken: only a token with the 'ingest' scope can become an agent credential",
      );
    if (old.clusterId && old.clusterId !== cluster.id)
      throw new AppError(
        'BAD_REQUEST',
        `fromToken: that token is bound to another cluster than '${cluster.name}'`,
      );
    if (old.agentId) throw new AppError('CONFLICT', 'fromToken: that token is already an agent credential');
    fromTokenId = old.id;
  }
  const res = await repo.enrollAgent(deps.db, orgId, {
    name: q.name,
    clusterId: cluster.id,
    token: fromTokenId
      ? { fromTokenId }
      : { name: `agent ${q.name}`, prefix: fresh.prefix, hash: fresh.hash, createdById: by.userId ?? null },
  });
  if ('conflict' in res)
    throw new AppError(
      'CONFLICT',
      `agent '${q.name}' already has an active credential; revoke it first (Settings → Agents)`,
    );
  await repo.writeAudit(deps.db, orgId, {
    ...(by.caller ? actorOf(by.caller) : { actorType: 'system' as const }),
    action: 'agent.enroll',
    targetType: 'agent',
    targetId: res.agent.id,
    data: { name: q.name, cluster: cluster.name, tokenId: res.token.id, converted: Boolean(input.fromToken) },
  });
  return {
    agent: { id: res.agent.id, name: res.agent.name, clusterId: cluster.id, cluster: cluster.name },
    credential: { id: res.token.id, prefix: res.token.prefix },
    /** The raw credential, shown once; null when an existing token was converted (its value is unchanged). */
    token: fromTokenId ? null : fresh.raw,
  };
}

/** Revokes an agent's credential; the agent gets 401 on its next request. */
export async function revokeAgent(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { token: ['revoke'] });
  const a = await repo.getAgent(deps.db, caller.orgId, id);
  if (!a || !(await repo.revokeAgentCredential(deps.db, caller.orgId, a.id)))
    throw notFound('agent with an active credential');
  await audit(deps, caller, {
    action: 'agent.revoke',
    targetId: a.id,
    data: { name: a.name },
  });
  return { id: a.id, revoked: true };
}
