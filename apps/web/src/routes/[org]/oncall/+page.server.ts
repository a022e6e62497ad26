import { getCaller, load as call } from '$lib/server/caller';
import { LIVE_HEALTH } from '$lib/live';
import { loadOncallAlerts } from '$lib/components/alerting/load';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  event.depends(LIVE_HEALTH);
  const api = await getCaller(event, event.params.org);
  const [oncall, alerting] = await Promise.all([call(() => api.dashboard.oncall()), loadOncallAlerts(api)]);
  return { oncall, alerting };
};
