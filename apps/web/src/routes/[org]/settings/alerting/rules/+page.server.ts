import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const api = await getCaller(event, event.params.org);
  const [rules, clusters] = await call(() => Promise.all([api.alerting.rules({}), api.clusters.list()]));
  return { rules, clusters: clusters.map((c) => ({ id: c.id, name: c.name })) };
};
