import { redirect } from '@sveltejs/kit';
import { getServer } from '$lib/server/deps';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = () => redirect(303, '/');

export const actions: Actions = {
  default: async ({ request }) => {
    const { auth } = await getServer();
    await auth.api.signOut({ headers: request.headers }).catch(() => undefined);
    redirect(303, '/login');
  },
};
