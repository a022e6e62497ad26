import { error } from '@sveltejs/kit';
import { getCaller, load as call } from '$lib/server/caller';
import { parseRange } from '$lib/components/time/range';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const nodeId = Number(event.params.node);
  if (!Number.isSafeInteger(nodeId) || nodeId <= 0) error(404, `node '${event.params.node}' not found`);
  const api = await getCaller(event, event.params.org);
  const range = parseRange(event.url.searchParams);
  const w = { id: event.params.id, nodeId, from: range.from, to: range.to };
  const [detail, charts] = await call(() => Promise.all([api.dashboard.node(w), api.dashboard.charts(w)]));
  return { range, detail, charts, now: Date.now() };
};
