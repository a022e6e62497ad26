import { z } from 'zod';
import * as repo from '@clusterscope/db';
import type { TDeps } from '../core/deps';
import { audit, auditChange } from './audit';
import { assertCan, type TCaller } from './caller';
import { AppError, notFound } from '../core/errors';
import { canSeeCluster } from './access';

export const ZClusterInput = z.object({
  name: z.string().trim().min(1).max(80),
  description: z.string().max(500).optional(),
  intervalS: z.number().int().min(1).max(3600).optional(),
});

export async function listClusters(deps: TDeps, caller: TCaller) {
  assertCan(caller, { cluster: ['read'] });
  const rows = await repo.listClusters(deps.db, caller.orgId);
  return rows.filter((c) => canSeeCluster(caller, c.id));
}

export async function getCluster(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { cluster: ['read'] });
  if (!canSeeCluster(caller, id)) throw notFound('cluster');
  const c = await repo.getCluster(deps.db, caller.orgId, id);
  if (!c) throw notFound('cluster');
  return c;
}

/** Accepts a cluster id or name (CI and agents usually know the name). */
export async function resolveCluster(deps: TDeps, caller: TCaller, idOrName: string) {
  const c =
    (await repo.getCluster(deps.db, caller.orgId, idOrName)) ??
    (await repo.findClusterByName(deps.db, caller.orgId, idOrName));
  if (!c || !canSeeCluster(caller, c.id)) throw notFound(`cluster '${idOrName}'`);
  return c;
}

const LOOKS_LIKE_ID = /^c[a-z0-9]{20,31}$/;

/** How to get a missing cluster, for 404 answers to CI. */
const HOW_TO_CREATE =
  'create it in Settings → Clusters or with POST /api/v1/clusters (admin token), or let an admin turn on "CI may create clusters" in Settings → Clusters';

/**
 * The cluster a CI run names (id or name), and whether this call created it. A name that does not exist yet
 * is created when the org allows it (Settings → Clusters; on only for the embedded demo org) and the caller
 * is not bound to one cluster; the creation is audited. Otherwise the 404 says how to create it.
 */
export async function resolveOrCreateRunCluster(
  deps: TDeps,
  caller: TCaller,
  idOrName: string,
): Promise<{ cluster: Awaited<ReturnType<typeof repo.createCluster>>; created: boolean }> {
  const c =
    (await repo.getCluster(deps.db, caller.orgId, idOrName)) ??
    (await repo.findClusterByName(deps.db, caller.orgId, idOrName));
  if (c) {
    if (!canSeeCluster(caller, c.id)) throw notFound(`cluster '${idOrName}'`);
    return { cluster: c, created: false };
  }
  if (caller.kind === 'token' && caller.clusterId)
    throw new AppError(
      'NOT_FOUND',
      `cluster '${idOrName}' not found (this token is bound to another cluster)`,
    );
  // An unknown id (of a deleted cluster, or of another organization's) is never taken for a new name.
  if (LOOKS_LIKE_ID.test(idOrName)) throw notFound(`cluster '${idOrName}'`);
  if (!(await repo.getAutoCreateClusters(deps.db, caller.orgId)))
    throw new AppError('NOT_FOUND', `cluster '${idOrName}' not found in this organization: ${HOW_TO_CREATE}`);
  const name = ZClusterInput.shape.name.safeParse(idOrName);
  if (!name.success) throw new AppError('BAD_REQUEST', 'cluster: a new cluster name has 1 to 80 characters');
  let created;
  try {
    created = await repo.createCluster(deps.db, caller.orgId, { name: name.data });
  } catch (err) {
    // A concurrent run created it first (unique name per org): use that one.
    const again = await repo.findClusterByName(deps.db, caller.orgId, name.data);
    if (!again) throw err;
    return { cluster: again, created: false };
  }
  await audit(deps, caller, {
    action: 'cluster.create',
    targetId: created.id,
    data: { name: created.name, auto: true, via: 'run.create' },
  });
  return { cluster: created, created: true };
}

/** The org's "CI may create clusters" setting. */
export async function getClusterSettings(deps: TDeps, caller: TCaller) {
  assertCan(caller, { cluster: ['read'] });
  return { autoCreate: await repo.getAutoCreateClusters(deps.db, caller.orgId) };
}

export async function setClusterSettings(deps: TDeps, caller: TCaller, input: { autoCreate: boolean }) {
  assertCan(caller, { cluster: ['create', 'delete'] });
  await repo.setAutoCreateClusters(deps.db, caller.orgId, input.autoCreate);
  await audit(deps, caller, {
    action: 'org.settings',
    targetType: 'organization',
    targetId: caller.orgId,
    data: { autoCreateClusters: input.autoCreate },
  });
  return { autoCreate: input.autoCreate };
}

export async function createCluster(deps: TDeps, caller: TCaller, input: z.infer<typeof ZClusterInput>) {
  assertCan(caller, { cluster: ['create'] });
  if (await repo.findClusterByName(deps.db, caller.orgId, input.name))
    throw new AppError('CONFLICT', `cluster '${input.name}' exists`);
  const c = await repo.createCluster(deps.db, caller.orgId, input);
  await audit(deps, caller, {
    action: 'cluster.create',
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
    const clash = await repo.findClusterByName(deps.db, caller.orgId, input.name);
    if (clash && clash.id !== id) throw new AppError('CONFLICT', `cluster '${input.name}' exists`);
  }
  const c = await repo.updateCluster(deps.db, caller.orgId, id, input);
  if (!c) throw notFound('cluster');
  await audit(deps, caller, {
    action: 'cluster.update',
    targetId: id,
    data: input,
  });
  return c;
}

export async function deleteCluster(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { cluster: ['delete'] });
  const e = { action: 'cluster.delete', id, what: 'cluster' } as const;
  await auditChange(deps, caller, e, repo.deleteCluster(deps.db, caller.orgId, id));
  return { id, deleted: true };
}
