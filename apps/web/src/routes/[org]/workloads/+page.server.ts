import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const api = await getCaller(event, event.params.org);
  const [workloads, clusters, agents] = await call(() =>
    Promise.all([api.workloads.list(), api.clusters.list(), api.agents.list()]),
  );
  // Latest verdict per workload: the run list's verdict of its newest run.
  const latest = await call(() =>
    Promise.all(
      workloads.map(async (w) =>
        w.lastRun ? ((await api.compare.runList({ workload: w.id, limit: 1 }))[0] ?? null) : null,
      ),
    ),
  );
  return {
    workloads,
    verdicts: Object.fromEntries(
      workloads.map((w, i) => [
        w.id,
        latest[i]
          ? { verdict: latest[i].verdict, reason: latest[i].verdictReason, runId: latest[i].id }
          : null,
      ]),
    ),
    clusters: clusters.map((c) => ({ id: c.id, name: c.name })),
    agents: agents.map((a) => ({ name: a.name, clusterId: a.clusterId })),
  };
};
