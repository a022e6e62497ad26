import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const api = await getCaller(event, event.params.org);
  const cluster = event.url.searchParams.get('cluster');
  const clusterId = cluster && /^[\w-]{1,64}$/.test(cluster) ? cluster : null;
  return call(() => api.pages.routing({ clusterId }));
};
