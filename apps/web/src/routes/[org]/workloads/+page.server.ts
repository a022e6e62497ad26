import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const api = await getCaller(event, event.params.org);
  const [workloads, clusters, agents] = await call(() =>
    Promise.all([api.workloads.list(), api.clusters.list(), api.agents.list()]),
  );
  return {
    workloads,
    clusters: clusters.map((c) => ({ id: c.id, name: c.name })),
    agents: agents.map((a) => ({ name: a.name, clusterId: a.clusterId })),
  };
};
