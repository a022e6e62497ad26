import { getCaller, load as call } from '$lib/server/caller';
import { parseRange } from '$lib/components/time/range';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const api = await getCaller(event, event.params.org);
  const range = parseRange(event.url.searchParams);
  const id = event.params.id;
  const w = { id, from: range.from, to: range.to };
  const [overview, charts, events] = await call(() =>
    Promise.all([api.dashboard.nodes({ id }), api.dashboard.charts(w), api.dashboard.events(w)]),
  );
  return { range, overview, charts, events };
};
