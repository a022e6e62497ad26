import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const api = await getCaller(event, event.params.org);
  const [agents, clusters, health] = await call(() =>
    Promise.all([api.agents.list(), api.clusters.list(), api.dashboard.clusters()]),
  );
  return { agents, clusters, health, now: Date.now() };
};
