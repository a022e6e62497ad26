import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const api = await getCaller(event, event.params.org);
  const [silences, clusters, rules, members] = await call(() =>
    Promise.all([
      api.alerting.silences({}),
      api.clusters.list(),
      api.alerting.rules({}),
      api.orgs.members().catch(() => []),
    ]),
  );
  return {
    silences,
    clusters: clusters.map((c) => ({ id: c.id, name: c.name })),
    rules: rules.map((r) => ({ id: r.id, name: r.name, clusterId: r.clusterId })),
    members: members.map((m) => ({ user: m.user })),
    now: Date.now(),
  };
};
