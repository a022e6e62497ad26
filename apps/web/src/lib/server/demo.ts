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
const log = (msg: string) => console.log(`clusterscope: demo: ${msg}`);

/**
 * DEMO=1: the built-in "Demo" cluster in org `demo` — backfills the last 24 h (from where it left off)
 * through the tsdb writer, then pushes one sample per node every interval and notifies open dashboards.
 * Runs in the background; failures are logged, never fatal.
 */
export function startDemo({ deps }: TServer): void {
  if (!getEnv().DEMO) return;
  const state: TDemoState = {};
  void (async () => {
    const found = await ensureDemoCluster(deps);
    if (!found) return log('organization "demo" not found; demo not started');
    const w = (state.writer = getIngestWriter(deps));
    const target = { orgId: found.orgId, clusterId: found.cluster.id, intervalS: found.cluster.intervalS };
    const step = target.intervalS * 1000;
    const t0 = Date.now();
    const rows = await backfillDemo(deps, w, target, t0);
    if (rows > 0) log(`backfilled ${rows} samples in ${Date.now() - t0} ms`);
    const runs = await seedDemoRuns(deps, w, {
      orgId: target.orgId,
      orgSlug: 'demo',
      clusterId: target.clusterId,
    });
    if (runs > 0) log(`seeded ${runs} benchmark runs (workload demo-pgbench)`);
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
    state.timer = setInterval(() => void tick().catch((e: Error) => log(`tick failed: ${e.message}`)), 1000);
    state.timer.unref();
    onShutdown(async () => clearInterval(state.timer));
  })().catch((err: Error) => log(`failed: ${err.message}`));
}
