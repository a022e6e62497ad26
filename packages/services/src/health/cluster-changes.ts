import {
  claimChangeFire,
  createClusterChange,
  findPendingChange,
  getClusterBuilds,
  listChangeWatches,
  saveClusterBuilds,
  updateClusterChange,
} from '@clusterscope/db';
import { getLatestNodes } from '@clusterscope/tsdb';
import type { TDeps } from '../core/deps';
import type { TCaller } from '../tenancy/caller';
import { checkClusterGate, startWorkloadRun } from '../runs/workloads';

export type TChangePass = {
  clusterId: string;
  changeId: string;
  fromTag: string;
  toTag: string;
  /** Runs started by this pass (empty while waiting). */
  runIds: string[];
  /** Why it still waits, or why a workload started no run. */
  waiting: string | null;
};

/** The tag most nodes in `ids` report (a rolling upgrade moves nodes one by one to the same build). */
function mostCommon(tags: string[]): string {
  const n = new Map<string, number>();
  for (const t of tags) n.set(t, (n.get(t) ?? 0) + 1);
  return [...n].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
}

/**
 * One pass over the clusters that workloads watch for build changes (run in the scheduler's pass, so
 * one instance does it):
 * - a node that reports another CockroachDB build tag than it last did (upgrade or rollback) opens a
 *   change from → to, or extends the cluster's open one (a rolling upgrade is one change);
 * - an open change starts each watching workload once, when the cluster passes the run gate (every
 *   node LIVE, no unavailable ranges) and all its nodes report one build; until then it says why it waits.
 * A cluster's first sighting only records its builds: no change.
 */
export async function checkClusterChanges(deps: TDeps, now = new Date()): Promise<TChangePass[]> {
  const watches = await listChangeWatches(deps.db);
  const byCluster = new Map<
    string,
    { orgId: string; slug: string; clusterId: string; workloadIds: string[] }
  >();
  for (const w of watches)
    for (const clusterId of w.changeClusterIds) {
      const key = `${w.organizationId}/${clusterId}`;
      const e = byCluster.get(key) ?? {
        orgId: w.organizationId,
        slug: w.organization.slug,
        clusterId,
        workloadIds: [],
      };
      e.workloadIds.push(w.id);
      byCluster.set(key, e);
    }
  const out: TChangePass[] = [];
  for (const c of byCluster.values()) {
    const nodes = (await getLatestNodes(deps.ch, c.orgId, c.clusterId)).filter(
      (n) => n.liveness !== 'DECOMMISSIONED' && n.build,
    );
    const seen: Record<string, string> = Object.fromEntries(nodes.map((n) => [String(n.node_id), n.build]));
    const known = await getClusterBuilds(deps.db, c.clusterId);
    const changed = known ? Object.keys(seen).filter((id) => known[id] && known[id] !== seen[id]) : [];
    if (changed.length) {
      const toTag = mostCommon(changed.map((id) => seen[id]!));
      const ids = changed.map(Number);
      const open = await findPendingChange(deps.db, c.orgId, c.clusterId);
      if (open)
        await updateClusterChange(deps.db, open.id, {
          toTag,
          nodeIds: [...new Set([...open.nodeIds, ...ids])].sort((a, b) => a - b),
        });
      else
        await createClusterChange(deps.db, c.orgId, {
          clusterId: c.clusterId,
          fromTag: mostCommon(changed.map((id) => known![id]!)),
          toTag,
          nodeIds: ids,
          detectedAt: now,
        });
    }
    if (!known || changed.length || Object.keys(seen).some((id) => !known[id]))
      await saveClusterBuilds(deps.db, c.orgId, c.clusterId, { ...known, ...seen });

    const open = await findPendingChange(deps.db, c.orgId, c.clusterId);
    if (!open) continue;
    const pass = { clusterId: c.clusterId, changeId: open.id, fromTag: open.fromTag, toTag: open.toTag };
    if (open.fromTag === open.toTag) {
      // Rolled back before the cluster settled: nothing changed to measure.
      const waiting = `back on ${open.fromTag} before the cluster settled: no run`;
      if (await claimChangeFire(deps.db, open.id, now))
        await updateClusterChange(deps.db, open.id, { waiting });
      out.push({ ...pass, runIds: [], waiting });
      continue;
    }
    const gate = await checkClusterGate(deps, c.orgId, c.clusterId);
    const tags = [...new Set(Object.values(seen))].sort();
    const waiting = !gate.ok
      ? `waiting for the cluster to be healthy: ${gate.reasons.join('; ')}`
      : tags.length > 1
        ? `waiting for every node to run one build (nodes report ${tags.join(' and ')})`
        : null;
    if (waiting) {
      if (waiting !== open.waiting) await updateClusterChange(deps.db, open.id, { waiting });
      out.push({ ...pass, runIds: [], waiting });
      continue;
    }
    if (!(await claimChangeFire(deps.db, open.id, now))) continue;
    const caller: TCaller = {
      kind: 'token',
      tokenId: `change:${open.id}`,
      orgId: c.orgId,
      orgSlug: c.slug,
      scopes: ['admin'],
      clusterId: null,
    };
    const runIds: string[] = [];
    const refused: string[] = [];
    for (const id of c.workloadIds) {
      try {
        const labels = {
          change: open.id,
          change_from: open.fromTag,
          change_to: open.toTag,
          change_at: open.detectedAt.toISOString(),
        };
        runIds.push(
          (await startWorkloadRun(deps, caller, { id, cluster: c.clusterId, labels }, 'change')).id,
        );
      } catch (err) {
        refused.push(`workload ${id}: ${(err as Error).message}`);
      }
    }
    const note = refused.length ? refused.join('; ') : null;
    await updateClusterChange(deps.db, open.id, { runIds, waiting: note });
    out.push({ ...pass, runIds, waiting: note });
  }
  return out;
}
