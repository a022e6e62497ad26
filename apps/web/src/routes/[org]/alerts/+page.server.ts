import { getCaller, load as call } from '$lib/server/caller';
import { parseFilters } from '$lib/components/alerting/format';
import { LIVE_HEALTH } from '$lib/live';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  event.depends(LIVE_HEALTH);
  const api = await getCaller(event, event.params.org);
  const filters = parseFilters(event.url.searchParams);
  const [alerts, clusters, members] = await call(() =>
    Promise.all([
      api.alerting.list({
        state: filters.state.length ? filters.state.join(',') : 'firing,pending,resolved',
        severity: filters.severity.length ? filters.severity.join(',') : undefined,
        clusterId: filters.clusterId || undefined,
        limit: 500,
      }),
      api.clusters.list(),
      api.orgs.members().catch(() => []),
    ]),
  );
  return {
    filters,
    alerts,
    clusters: clusters.map((c) => ({ id: c.id, name: c.name })),
    members: members.map((m) => ({ user: m.user })),
    now: Date.now(),
  };
};
