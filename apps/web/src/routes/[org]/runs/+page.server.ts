import { error } from '@sveltejs/kit';
import { ZRunFilter } from '@clusterscope/schema';
import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

const KEYS = ['cluster', 'workload', 'tool', 'branch', 'label', 'status', 'from', 'to', 'limit'] as const;

export const load: PageServerLoad = async (event) => {
  const raw = Object.fromEntries(
    KEYS.map((k) => [k, event.url.searchParams.get(k) ?? '']).filter(([, v]) => v !== ''),
  );
  const parsed = ZRunFilter.safeParse(raw);
  if (!parsed.success)
    error(400, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const api = await getCaller(event, event.params.org);
  const [runs, clusters] = await call(() =>
    Promise.all([api.compare.runList(parsed.data), api.clusters.list()]),
  );
  return { runs, clusters, filter: raw as Record<string, string> };
};
