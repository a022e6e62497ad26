import { getCaller, load as call } from '$lib/server/caller';
import { parseRange } from '$lib/components/time/range';
import { LIVE_HEALTH } from '$lib/live';
import { buildAlertLanes } from '$lib/components/alerting/alert-lanes';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  event.depends(LIVE_HEALTH);
  const api = await getCaller(event, event.params.org);
  const range = parseRange(event.url.searchParams);
  const { view, alerts } = await call(() =>
    api.pages.cluster({ id: event.params.id, from: range.from, to: range.to }),
  );
  // Only what the timeline draws goes into the page (not every instance's labels, ack and timestamps).
  return { range, view, alertLanes: alerts && buildAlertLanes(alerts, range.from) };
};
