import { getCaller, load as call } from '$lib/server/caller';
import { parseFilters } from '$lib/components/alerting/format';
import { LIVE_HEALTH } from '$lib/live';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  event.depends(LIVE_HEALTH);
  const api = await getCaller(event, event.params.org);
  const filters = parseFilters(event.url.searchParams);
  const page = await call(() =>
    api.pages.alerts({
      state: filters.state.length ? filters.state.join(',') : 'firing,pending,resolved',
      severity: filters.severity.length ? filters.severity.join(',') : undefined,
      clusterId: filters.clusterId || undefined,
      limit: 500,
    }),
  );
  return { filters, ...page, now: Date.now() };
};
