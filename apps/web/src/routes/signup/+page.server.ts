import { fail, redirect } from '@sveltejs/kit';
import { APIError } from 'better-auth/api';
import { createOrg, MIN_PASSWORD_LENGTH, ZOrgCreate } from '@clusterscope/services/tenancy';
import { getServer } from '$lib/server/deps';
import { getEnv } from '$lib/server/env';
import type { Actions, PageServerLoad } from './$types';

/** `?invite=<id>`: the account is created for an invitation; the user then accepts it on /invite/<id>. */
const inviteId = (v: FormDataEntryValue | string | null) => {
  const s = String(v ?? '');
  return /^[\w-]{1,100}$/.test(s) ? s : null;
};

export const load: PageServerLoad = ({ url }) => ({
  signup: getEnv().SIGNUP,
  invite: inviteId(url.searchParams.get('invite')),
  minPassword: MIN_PASSWORD_LENGTH,
});

/**
 * Sign-up creates the user and, unless they came with an invitation, their first organization (they become
 * its owner). Who may create an account (SIGNUP) is enforced by better-auth's user-creation hook.
 */
export const actions: Actions = {
  default: async ({ request, locals }) => {
    const form = await request.formData();
    const name = String(form.get('name') ?? '').trim();
    const email = String(form.get('email') ?? '').trim();
    const password = String(form.get('password') ?? '');
    const orgName = String(form.get('org') ?? '').trim();
    const invite = inviteId(form.get('invite'));
    const values = { name, email, org: orgName };
    const { auth, deps } = await getServer();
    let userId = locals.user?.id;
    if (!userId) {
      if (!name || !email) return fail(400, { ...values, error: 'Name and email are required.' });
      if (password.length < MIN_PASSWORD_LENGTH)
        return fail(400, {
          ...values,
          error: `Password: use at least ${MIN_PASSWORD_LENGTH} characters.`,
        });
      try {
        const res = await auth.api.signUpEmail({ body: { name, email, password }, headers: request.headers });
        userId = res.user.id;
      } catch (err) {
        return fail(err instanceof APIError && err.statusCode === 403 ? 403 : 400, {
          ...values,
          error: err instanceof APIError ? err.message : 'Sign-up failed.',
        });
      }
      if (invite) redirect(303, `/invite/${invite}`);
      if (!orgName) redirect(303, '/');
    }
    const slug = orgName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '');
    const org = ZOrgCreate.safeParse({ name: orgName, slug });
    if (!org.success) return fail(400, { ...values, error: `Organization: ${org.error.issues[0].message}` });
    try {
      await createOrg(deps, org.data, userId);
    } catch (err) {
      return fail(409, { ...values, error: (err as Error).message });
    }
    redirect(303, `/${org.data.slug}/clusters`);
  },
};
