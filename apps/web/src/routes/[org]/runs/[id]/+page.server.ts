import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const api = await getCaller(event, event.params.org);
  const baseline = event.url.searchParams.get('baseline') || undefined;
  return call(() => api.compare.runPage({ id: event.params.id, baseline }));
};
