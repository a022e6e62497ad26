import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

/** `?edit=<id>` edits an existing workload (saving bumps its version). */
export const load: PageServerLoad = async (event) => {
  const id = event.url.searchParams.get('edit');
  if (!id) return { workload: null };
  const api = await getCaller(event, event.params.org);
  return { workload: await call(() => api.workloads.get({ id })) };
};
