import { ROLES, type TRole, type TScope } from '@clusterscope/schema';
import { AppError } from '../core/errors';
import { roleCan, type TPermission } from './permissions';

/** Who is calling, already resolved to exactly one organization. */
export type TCaller =
  | { kind: 'user'; userId: string; orgId: string; orgSlug: string; role: TRole }
  | {
      kind: 'token';
      tokenId: string;
      orgId: string;
      orgSlug: string;
      scopes: TScope[];
      clusterId: string | null;
      /** Set for an agent credential: the one agent this token is (its clusterId is the agent's). */
      agentId?: string | null;
    };

/** Token scopes expressed as permissions. `admin` holds everything. */
const scopePermissions: Record<TScope, TPermission> = {
  read: { cluster: ['read'], run: ['read'], workload: ['read'], alert: ['read'] },
  ingest: { cluster: ['read'] },
  'runs:write': { run: ['read', 'write'], workload: ['read'], cluster: ['read'], alert: ['read'] },
  admin: {
    cluster: ['read', 'create', 'update', 'delete'],
    token: ['read', 'create', 'revoke'],
    run: ['read', 'write', 'start', 'cancel'],
    workload: ['read', 'write'],
    alert: ['read', 'ack', 'silence', 'configure'],
  },
};

function tokenCan(scopes: TScope[], permission: TPermission): boolean {
  return Object.entries(permission).every(([resource, actions]) =>
    (actions as string[]).every((a) =>
      scopes.some((s) => (scopePermissions[s] as Record<string, string[]>)[resource]?.includes(a)),
    ),
  );
}

/** Writes that reach every cluster of the org; a token bound to one cluster never holds them. */
const orgWideWrites: TPermission = {
  token: ['create', 'revoke'],
  cluster: ['create', 'delete'],
  workload: ['write'],
  alert: ['configure'],
};
const isOrgWideWrite = (permission: TPermission): boolean =>
  Object.entries(permission).some(([r, actions]) =>
    (actions as string[]).some((a) => (orgWideWrites as Record<string, string[]>)[r]?.includes(a)),
  );

export function can(caller: TCaller, permission: TPermission): boolean {
  if (caller.kind === 'user') return roleCan(caller.role, permission);
  if (caller.clusterId && isOrgWideWrite(permission)) return false;
  return tokenCan(caller.scopes, permission);
}

export function assertCan(caller: TCaller, permission: TPermission): void {
  if (!can(caller, permission)) {
    const need = Object.entries(permission)
      .map(([r, a]) => `${r}:${(a as string[]).join('|')}`)
      .join(', ');
    throw new AppError('FORBIDDEN', `${whoCannot(caller)} cannot ${need}: ${whatToAdd(caller, permission)}`);
  }
}

const whoCannot = (caller: TCaller) =>
  caller.kind === 'user'
    ? `role '${caller.role}'`
    : `${caller.clusterId ? 'a token bound to one cluster' : 'a token'} with scopes [${caller.scopes.join(', ')}]`;

/** The fix in the caller's terms: the scope a token needs added, or the role a member needs. */
function whatToAdd(caller: TCaller, permission: TPermission): string {
  if (caller.kind === 'user') {
    const role = [...ROLES].reverse().find((r) => roleCan(r, permission));
    return role ? `ask an organization admin for the '${role}' role` : 'no role may do this';
  }
  if (caller.clusterId && isOrgWideWrite(permission))
    return "this reaches every cluster: use a token that is not bound to a cluster, with the 'admin' scope";
  const order: TScope[] = ['read', 'ingest', 'runs:write', 'admin'];
  const scope = order.find((s) => tokenCan([...caller.scopes, s], permission)) ?? 'admin';
  return `use a token with the '${scope}' scope (Settings → API tokens, or the admin CLI's \`token create --scopes ${scope}\`)`;
}

export function hasScope(caller: TCaller, scope: TScope): boolean {
  return caller.kind === 'token' && (caller.scopes.includes(scope) || caller.scopes.includes('admin'));
}

export const actorOf = (c: TCaller) =>
  c.kind === 'user'
    ? { actorType: 'user' as const, actorId: c.userId }
    : { actorType: 'token' as const, actorId: c.tokenId };
