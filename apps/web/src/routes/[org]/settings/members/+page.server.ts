import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const api = await getCaller(event, event.params.org);
  const { role } = await call(() => api.orgs.current());
  const manage = role === 'owner' || role === 'admin';
  return {
    members: await call(() => api.orgs.members()),
    invitations: manage ? await call(() => api.orgs.invitations()) : [],
  };
};
