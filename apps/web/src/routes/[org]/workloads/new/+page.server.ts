import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

/** `?edit=<id>` edits an existing workload (saving bumps its version). */
export const load: PageServerLoad = async (event) => {
  const id = event.url.searchParams.get('edit');
  const api = await getCaller(event, event.params.org);
  const [workload, clusters] = await Promise.all([
    id ? call(() => api.workloads.get({ id })) : null,
    call(() => api.clusters.list()),
  ]);
  return { workload, clusters: clusters.map((c) => ({ id: c.id, name: c.name })) };
};
