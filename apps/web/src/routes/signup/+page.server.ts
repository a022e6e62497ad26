import { fail, redirect } from '@sveltejs/kit';
import { APIError } from 'better-auth/api';
import { createOrg, ZOrgCreate } from '@clusterscope/services';
import { getServer } from '$lib/server/deps';
import type { Actions } from './$types';

/** Sign-up creates the user and their first organization (they become its owner). */
export const actions: Actions = {
  default: async ({ request, locals }) => {
    const form = await request.formData();
    const name = String(form.get('name') ?? '').trim();
    const email = String(form.get('email') ?? '').trim();
    const password = String(form.get('password') ?? '');
    const orgName = String(form.get('org') ?? '').trim();
    const slug = orgName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '');
    const values = { name, email, org: orgName };
    const org = ZOrgCreate.safeParse({ name: orgName, slug });
    if (!org.success) return fail(400, { ...values, error: `Organization: ${org.error.issues[0].message}` });
    const { auth, deps } = await getServer();
    let userId = locals.user?.id;
    if (!userId) {
      if (!name || !email || password.length < 8)
        return fail(400, { ...values, error: 'Name, email and a password of 8+ characters are required.' });
      try {
        const res = await auth.api.signUpEmail({ body: { name, email, password }, headers: request.headers });
        userId = res.user.id;
      } catch (err) {
        return fail(400, { ...values, error: err instanceof APIError ? err.message : 'Sign-up failed.' });
      }
    }
    try {
      await createOrg(deps, org.data, userId);
    } catch (err) {
      return fail(409, { ...values, error: (err as Error).message });
    }
    redirect(303, `/${org.data.slug}/clusters`);
  },
};
