import { logOf } from '@clusterscope/services/core';
import { backfillDemo, ensureDemoCluster, seedDemoRuns, writeDemoTick } from '@clusterscope/services/demo';
import { getIngestWriter } from '@clusterscope/services/ingest';
import { SAMPLES } from '@clusterscope/services/reads';
import { onShutdown, type TServer, type TWriter } from './deps';
import { getEnv } from './env';
import { notify } from './live';

interface TDemoState {
  timer?: NodeJS.Timeout;
  writer?: TWriter;
}

/**
 * DEMO=1: the built-in "Demo" cluster in org `demo` — backfills the last 24 h (from where it left off)
 * through the tsdb writer, then pushes one sample per node every interval and notifies open dashboards.
 * Runs in the background; failures are logged, never fatal.
 */
export function startDemo({ deps }: TServer): void {
  if (!getEnv().DEMO) return;
  const state: TDemoState = {};
  const log = logOf(deps).child({ name: 'demo' });
  void (async () => {
    const found = await ensureDemoCluster(deps);
    if (!found) return log.info('organization "demo" not found; demo not started');
    const w = (state.writer = getIngestWriter(deps));
    const target = { orgId: found.orgId, clusterId: found.cluster.id, intervalS: found.cluster.intervalS };
    const step = target.intervalS * 1000;
    const t0 = Date.now();
    const rows = await backfillDemo(deps, w, target, t0);
    if (rows > 0) log.info({ rows, ms: Date.now() - t0 }, 'backfilled samples');
    const runs = await seedDemoRuns(deps, w, {
      orgId: target.orgId,
      orgSlug: 'demo',
      clusterId: target.clusterId,
    });
    if (runs > 0) log.info({ runs, workload: 'demo-pgbench' }, 'seeded benchmark runs');
    // As ingest does: this instance's caches see the write at once, the others (and open pages) by notice.
    const stored = (kinds: string[]) => {
      deps.series?.changed(target.orgId, target.clusterId);
      notify({ orgId: target.orgId, topic: SAMPLES, clusterId: target.clusterId, kinds });
    };
    stored(['node_status']);
    let last = Math.floor(t0 / step) * step;
    const tick = async () => {
      const t = Math.floor(Date.now() / step) * step;
      if (t <= last) return;
      last = t;
      await writeDemoTick(w, target, t);
      stored(['node_status', 'cgroup_usage']);
    };
    state.timer = setInterval(
      () => void tick().catch((e: Error) => log.error({ err: e.message }, 'tick failed')),
      1000,
    );
    state.timer.unref();
    onShutdown(async () => clearInterval(state.timer));
  })().catch((err: Error) => log.error({ err: err.message }, 'failed'));
}
