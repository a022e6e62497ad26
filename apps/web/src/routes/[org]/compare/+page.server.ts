import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const runs = event.url.searchParams.get('runs') ?? '';
  const baseline = event.url.searchParams.get('baseline') || undefined;
  // Reached from the navigation with nothing chosen yet: the page's empty state, not an error.
  if (!runs) return { comparison: null, runsParam: '', baseline };
  const api = await getCaller(event, event.params.org);
  return { comparison: await call(() => api.compare.view({ runs, baseline })), runsParam: runs, baseline };
};
