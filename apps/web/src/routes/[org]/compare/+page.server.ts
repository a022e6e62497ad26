import { error } from '@sveltejs/kit';
import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const runs = event.url.searchParams.get('runs') ?? '';
  const baseline = event.url.searchParams.get('baseline') || undefined;
  if (!runs) error(400, 'runs: choose 2 to 8 runs (?runs=a,b)');
  const api = await getCaller(event, event.params.org);
  return { comparison: await call(() => api.compare.view({ runs, baseline })), runsParam: runs, baseline };
};
