import { getCaller, load as call } from '$lib/server/caller';
import { LIVE_HEALTH } from '$lib/live';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  event.depends(LIVE_HEALTH);
  const api = await getCaller(event, event.params.org);
  const [alert, members] = await call(() =>
    Promise.all([api.alerting.get({ id: event.params.id }), api.orgs.members().catch(() => [])]),
  );
  return { alert, members: members.map((m) => ({ user: m.user })), now: Date.now() };
};
