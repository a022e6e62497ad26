import { redirect } from '@sveltejs/kit';
import { getCaller, load as call } from '$lib/server/caller';
import { LIVE_HEALTH } from '$lib/live';
import type { LayoutServerLoad } from './$types';

export const load: LayoutServerLoad = async (event) => {
  if (!event.locals.user)
    redirect(303, `/login?next=${encodeURIComponent(event.url.pathname + event.url.search)}`);
  // The navigation's alert count follows live updates as the pages' statuses do.
  event.depends(LIVE_HEALTH);
  const api = await getCaller(event, event.params.org);
  return call(() => api.pages.nav());
};
