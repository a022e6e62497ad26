import { createAccessControl } from 'better-auth/plugins/access';
import { defaultStatements, ownerAc, adminAc, memberAc } from 'better-auth/plugins/organization/access';
import type { TRole } from '@clusterscope/schema';

/** Org-level permissions. One table, used by better-auth's organization plugin and by every procedure. */
export const statements = {
  ...defaultStatements,
  /** `read` = see the member list and emails; every role has it, tokens only with `admin`. */
  member: ['read', ...defaultStatements.member],
  cluster: ['read', 'create', 'update', 'delete'],
  token: ['read', 'create', 'revoke'],
  run: ['read', 'write', 'start', 'cancel'],
  workload: ['read', 'write'],
  /** ack: acknowledge; silence: create/expire silences; configure: on-call rules, channels, routing. */
  alert: ['read', 'ack', 'silence', 'configure'],
} as const;

export const ac = createAccessControl(statements);

const read = {
  cluster: ['read'],
  run: ['read'],
  workload: ['read'],
  alert: ['read'],
  member: ['read'],
} as const;
const write = {
  member: ['read'],
  cluster: ['read', 'create', 'update'],
  run: ['read', 'write', 'start', 'cancel'],
  workload: ['read', 'write'],
  alert: ['read', 'ack', 'silence'],
} as const;
/** Every action on our own resources. */
const { cluster, token, run, workload, alert } = statements;
const admin = { cluster, token, run, workload, alert };

export const roles = {
  owner: ac.newRole({ ...ownerAc.statements, ...admin, member: ['read', ...ownerAc.statements.member] }),
  admin: ac.newRole({ ...adminAc.statements, ...admin, member: ['read', ...adminAc.statements.member] }),
  member: ac.newRole({ ...memberAc.statements, ...write }),
  viewer: ac.newRole({ ...read, ac: ['read'] }),
} satisfies Record<TRole, unknown>;

export type TPermission = { [K in keyof typeof statements]?: (typeof statements)[K][number][] };

export function roleCan(role: string, permission: TPermission): boolean {
  const r = roles[role as TRole];
  if (!r) return false;
  return r.authorize(permission as never).success;
}
