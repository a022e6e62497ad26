import { redirect } from '@sveltejs/kit';
import { getCaller } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  if (!event.locals.user) redirect(303, '/login');
  const orgs = await (await getCaller(event, '')).orgs.mine();
  if (orgs.length === 0) redirect(303, '/signup?step=org');
  redirect(303, `/${orgs[0].slug}/clusters`);
};
