import { error } from '@sveltejs/kit';
import { getCaller, load as call } from '$lib/server/caller';
import { parseRange } from '$lib/components/time/range';
import { LIVE_HEALTH } from '$lib/live';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  event.depends(LIVE_HEALTH);
  const nodeId = Number(event.params.node);
  if (!Number.isSafeInteger(nodeId) || nodeId <= 0) error(404, `node '${event.params.node}' not found`);
  const api = await getCaller(event, event.params.org);
  const range = parseRange(event.url.searchParams);
  const detail = await call(() =>
    api.dashboard.nodeView({ id: event.params.id, nodeId, from: range.from, to: range.to, charts: false }),
  );
  return { range, detail };
};
