import { createHash, randomBytes } from 'node:crypto';
import {
  createApiToken,
  findApiTokenByHash,
  getCluster,
  listApiTokens,
  revokeApiToken,
  touchApiToken,
  writeAudit,
} from '@clusterscope/db';
import { type TScope, type TTokenCreate } from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import { auditChange } from './audit';
import { actorOf, assertCan, type TCaller } from './caller';
import { AppError, notFound } from '../core/errors';

const PREFIX = 'cs_';

export const hashToken = (raw: string) => createHash('sha256').update(raw).digest('hex');

/** `cs_<8 visible>_<secret>`: the visible part is stored as prefix for recognition in the UI. */
export function generateToken(): { raw: string; prefix: string; hash: string } {
  const visible = randomBytes(6).toString('base64url').slice(0, 8);
  const raw = `${PREFIX}${visible}_${randomBytes(24).toString('base64url')}`;
  return { raw, prefix: `${PREFIX}${visible}`, hash: hashToken(raw) };
}

/** Creates a token for the caller's org; the raw value is returned once and never stored. */
export async function createToken(
  deps: TDeps,
  orgId: string,
  input: TTokenCreate,
  createdBy: { userId?: string | null; caller?: TCaller } = {},
) {
  if (createdBy.caller) assertCan(createdBy.caller, { token: ['create'] });
  if (input.clusterId && !(await getCluster(deps.db, orgId, input.clusterId))) throw notFound('cluster');
  const t = generateToken();
  const row = await createApiToken(deps.db, orgId, {
    name: input.name,
    prefix: t.prefix,
    hash: t.hash,
    scopes: [...new Set(input.scopes)],
    clusterId: input.clusterId ?? null,
    createdById: createdBy.userId ?? null,
    expiresAt: input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 86_400_000) : null,
  });
  const actor = createdBy.caller ? actorOf(createdBy.caller) : { actorType: 'system' as const };
  await writeAudit(deps.db, orgId, {
    ...actor,
    action: 'token.create',
    targetType: 'token',
    targetId: row.id,
    data: { name: row.name, scopes: row.scopes },
  });
  const { hash: _hash, ...safe } = row;
  return { token: t.raw, ...safe };
}

export async function listTokens(deps: TDeps, caller: TCaller) {
  assertCan(caller, { token: ['read'] });
  return listApiTokens(deps.db, caller.orgId);
}

export async function revokeToken(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { token: ['revoke'] });
  const e = { action: 'token.revoke', id, what: 'active token' } as const;
  await auditChange(deps, caller, e, revokeApiToken(deps.db, caller.orgId, id));
  return { id, revoked: true };
}

const touched = new Map<string, number>();

/**
 * Resolves a bearer token to a caller, or throws UNAUTHORIZED with the reason. Looks the token up on every
 * request (no cache), so a revoked token or agent credential is refused at once.
 */
export async function authenticateToken(
  deps: TDeps,
  raw: string,
): Promise<Extract<TCaller, { kind: 'token' }>> {
  if (!raw.startsWith(PREFIX)) throw new AppError('UNAUTHORIZED', 'malformed API token');
  const row = await findApiTokenByHash(deps.db, hashToken(raw));
  if (!row) throw new AppError('UNAUTHORIZED', 'unknown API token');
  if (row.revokedAt) throw new AppError('UNAUTHORIZED', 'API token has been revoked');
  if (row.expiresAt && row.expiresAt < new Date())
    throw new AppError('UNAUTHORIZED', 'API token has expired');
  const now = Date.now();
  // lastUsedAt at most once a minute per token: the ingest hot path must not write Postgres per request.
  if ((touched.get(row.id) ?? 0) < now - 60_000) {
    touched.set(row.id, now);
    await touchApiToken(deps.db, row.id, new Date(now));
  }
  return {
    kind: 'token',
    tokenId: row.id,
    orgId: row.organizationId,
    orgSlug: row.organization.slug,
    scopes: row.scopes as TScope[],
    clusterId: row.clusterId,
    agentId: row.agentId,
  };
}
