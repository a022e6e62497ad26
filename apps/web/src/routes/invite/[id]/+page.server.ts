import { fail, redirect } from '@sveltejs/kit';
import { getCaller, load as call } from '$lib/server/caller';
import { statusOf } from '$lib/server/status';
import type { Actions, PageServerLoad } from './$types';

/** The invited person's page: sign in (or sign up) with the invited email, then accept or decline. */
export const load: PageServerLoad = async (event) => {
  const id = event.params.id;
  if (!event.locals.user) return { id, invitation: null };
  const api = await getCaller(event, '');
  return { id, invitation: await call(() => api.orgs.invitation({ id })) };
};

async function act(event: Parameters<Actions[string]>[0], accept: boolean) {
  if (!event.locals.user) redirect(303, `/login?next=/invite/${encodeURIComponent(event.params.id)}`);
  const api = await getCaller(event, '');
  try {
    if (!accept) {
      await api.orgs.rejectInvitation({ id: event.params.id });
      return { declined: true };
    }
    const res = await api.orgs.acceptInvitation({ id: event.params.id });
    redirect(303, `/${res.org.slug}/clusters`);
  } catch (err) {
    const status = statusOf(err);
    if (status) return fail(status, { error: (err as Error).message });
    throw err;
  }
}

export const actions: Actions = {
  accept: (event) => act(event, true),
  decline: (event) => act(event, false),
};
