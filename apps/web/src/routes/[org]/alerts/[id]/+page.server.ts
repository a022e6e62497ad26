import { getCaller, load as call } from '$lib/server/caller';
import { LIVE_HEALTH } from '$lib/live';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  event.depends(LIVE_HEALTH);
  const api = await getCaller(event, event.params.org);
  return { ...(await call(() => api.pages.alert({ id: event.params.id }))), now: Date.now() };
};
