import { writeAudit, type TAuditEntry } from '@clusterscope/db';
import { actorOf, type TCaller } from './caller';
import type { TDeps } from '../core/deps';
import { notFound } from '../core/errors';

type TAction = `${string}.${string}`;

/**
 * Records what `caller` did in its org's audit log. `action` is `<type>.<verb>`; the target's type is the
 * action's type unless `targetType` says otherwise.
 */
export async function audit(
  deps: Pick<TDeps, 'db'>,
  caller: TCaller,
  e: { action: TAction; targetId: string; targetType?: string; data?: TAuditEntry['data'] },
): Promise<void> {
  const targetType = e.targetType ?? e.action.slice(0, e.action.indexOf('.'));
  await writeAudit(deps.db, caller.orgId, { ...actorOf(caller), ...e, targetType });
}

/** Awaits the `change` of row `id` of the caller's org: 404 naming `what` if it changed none, else audited. */
export async function auditChange(
  deps: Pick<TDeps, 'db'>,
  caller: TCaller,
  e: { action: TAction; id: string; what: string },
  change: Promise<boolean>,
): Promise<void> {
  if (!(await change)) throw notFound(e.what);
  await audit(deps, caller, { action: e.action, targetId: e.id });
}
