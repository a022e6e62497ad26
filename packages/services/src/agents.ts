import { listAgents } from '@clusterscope/db';
import type { TDeps } from './deps';
import { assertCan, type TCaller } from './caller';
import { canSeeCluster } from './access';

export async function findAgents(deps: TDeps, caller: TCaller) {
  assertCan(caller, { cluster: ['read'] });
  const rows = await listAgents(deps.db, caller.orgId);
  return rows
    .filter((a) => canSeeCluster(caller, a.clusterId))
    .map((a) => ({ ...a, outboxBytes: Number(a.outboxBytes) }));
}
