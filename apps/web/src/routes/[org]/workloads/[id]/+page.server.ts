import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const api = await getCaller(event, event.params.org);
  const [history, schedules, clusters] = await Promise.all([
    call(() => api.compare.history({ workloadId: event.params.id })),
    call(() => api.schedules.list({ workloadId: event.params.id })),
    call(() => api.clusters.list()),
  ]);
  return { history, schedules, clusters: clusters.map((c) => ({ id: c.id, name: c.name })) };
};
