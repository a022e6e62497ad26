import { fail, redirect } from '@sveltejs/kit';
import { APIError } from 'better-auth/api';
import { getServer } from '$lib/server/deps';
import type { Actions, PageServerLoad } from './$types';

const safeNext = (v: string | null) => (v && v.startsWith('/') && !v.startsWith('//') ? v : '/');

export const load: PageServerLoad = ({ locals, url }) => {
  if (locals.user) redirect(303, safeNext(url.searchParams.get('next')));
};

export const actions: Actions = {
  default: async ({ request, url }) => {
    const form = await request.formData();
    const email = String(form.get('email') ?? '').trim();
    const password = String(form.get('password') ?? '');
    if (!email || !password) return fail(400, { email, error: 'Email and password are required.' });
    const { auth } = await getServer();
    try {
      await auth.api.signInEmail({ body: { email, password }, headers: request.headers });
    } catch (err) {
      const msg = err instanceof APIError ? err.message : 'Sign-in failed.';
      return fail(400, { email, error: msg || 'Invalid email or password.' });
    }
    redirect(303, safeNext(url.searchParams.get('next')));
  },
};
