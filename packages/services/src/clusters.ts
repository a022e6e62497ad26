import { z } from 'zod';
import {
  createCluster as insertCluster,
  deleteCluster as removeCluster,
  findClusterByName,
  getCluster,
  listClusters,
  updateCluster as patchCluster,
  writeAudit,
} from '@clusterscope/db';
import type { TDeps } from './deps';
import { actorOf, assertCan, type TCaller } from './caller';
import { AppError, notFound } from './errors';
import { canSeeCluster } from './access';

export const ZClusterInput = z.object({
  name: z.string().trim().min(1).max(80),
  description: z.string().max(500).optional(),
  intervalS: z.number().int().min(1).max(3600).optional(),
});

export async function findClusters(deps: TDeps, caller: TCaller) {
  assertCan(caller, { cluster: ['read'] });
  const rows = await listClusters(deps.db, caller.orgId);
  return rows.filter((c) => canSeeCluster(caller, c.id));
}

export async function getClusterById(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { cluster: ['read'] });
  if (!canSeeCluster(caller, id)) throw notFound('cluster');
  const c = await getCluster(deps.db, caller.orgId, id);
  if (!c) throw notFound('cluster');
  return c;
}

/** Accepts a cluster id or name (CI and agents usually know the name). */
export async function resolveCluster(deps: TDeps, caller: TCaller, idOrName: string) {
  const c =
    (await getCluster(deps.db, caller.orgId, idOrName)) ??
    (await findClusterByName(deps.db, caller.orgId, idOrName));
  if (!c || !canSeeCluster(caller, c.id)) throw notFound(`cluster '${idOrName}'`);
  return c;
}

export async function createCluster(deps: TDeps, caller: TCaller, input: z.infer<typeof ZClusterInput>) {
  assertCan(caller, { cluster: ['create'] });
  if (await findClusterByName(deps.db, caller.orgId, input.name))
    throw new AppError('CONFLICT', `cluster '${input.name}' exists`);
  const c = await insertCluster(deps.db, caller.orgId, input);
  await writeAudit(deps.db, caller.orgId, {
    ...actorOf(caller),
    action: 'cluster.create',
    targetType: 'cluster',
    targetId: c.id,
    data: { name: c.name },
  });
  return c;
}

export async function updateCluster(
  deps: TDeps,
  caller: TCaller,
  id: string,
  input: Partial<z.infer<typeof ZClusterInput>>,
) {
  assertCan(caller, { cluster: ['update'] });
  if (!canSeeCluster(caller, id)) throw notFound('cluster');
  if (input.name) {
    const clash = await findClusterByName(deps.db, caller.orgId, input.name);
    if (clash && clash.id !== id) throw new AppError('CONFLICT', `cluster '${input.name}' exists`);
  }
  const c = await patchCluster(deps.db, caller.orgId, id, input);
  if (!c) throw notFound('cluster');
  await writeAudit(deps.db, caller.orgId, {
    ...actorOf(caller),
    action: 'cluster.update',
    targetType: 'cluster',
    targetId: id,
    data: input,
  });
  return c;
}

export async function deleteCluster(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { cluster: ['delete'] });
  if (!(await removeCluster(deps.db, caller.orgId, id))) throw notFound('cluster');
  await writeAudit(deps.db, caller.orgId, {
    ...actorOf(caller),
    action: 'cluster.delete',
    targetType: 'cluster',
    targetId: id,
  });
  return { id, deleted: true };
}
