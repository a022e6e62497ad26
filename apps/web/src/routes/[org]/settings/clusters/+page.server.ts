import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const api = await getCaller(event, event.params.org);
  const [clusters, settings] = await call(() => Promise.all([api.clusters.list(), api.clusters.settings()]));
  return { clusters, settings };
};
