import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const api = await getCaller(event, event.params.org);
  const cluster = event.url.searchParams.get('cluster');
  const clusterId = cluster && /^[\w-]{1,64}$/.test(cluster) ? cluster : null;
  const [routing, channels, clusters] = await call(() =>
    Promise.all([api.alerting.routing({ clusterId }), api.alerting.channels(), api.clusters.list()]),
  );
  return {
    routing,
    channels: channels.map((c) => ({ id: c.id, name: c.name, kind: c.kind, enabled: c.enabled })),
    clusters: clusters.map((c) => ({ id: c.id, name: c.name })),
  };
};
