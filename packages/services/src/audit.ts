import { writeAudit, type TAuditEntry } from '@clusterscope/db';
import { actorOf, type TCaller } from './caller';
import type { TDeps } from './deps';

/**
 * Records what `caller` did in its org's audit log. `action` is `<type>.<verb>`; the target's type is the
 * action's type unless `targetType` says otherwise.
 */
export async function audit(
  deps: Pick<TDeps, 'db'>,
  caller: TCaller,
  e: { action: `${string}.${string}`; targetId: string; targetType?: string; data?: TAuditEntry['data'] },
): Promise<void> {
  const targetType = e.targetType ?? e.action.slice(0, e.action.indexOf('.'));
  await writeAudit(deps.db, caller.orgId, { ...actorOf(caller), ...e, targetType });
}
