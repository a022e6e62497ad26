import { fail, redirect } from '@sveltejs/kit';
import { APIError } from 'better-auth/api';
import { safeNext } from '$lib/safe-next';
import { CLIENT_IP_HEADER, clientAddress } from '$lib/server/client-address';
import { getServer } from '$lib/server/deps';
import { getSignInLimiter } from '$lib/server/deps';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = ({ locals, url }) => {
  if (locals.user) redirect(303, safeNext(url.searchParams.get('next')));
};

export const actions: Actions = {
  // Calls better-auth server-side, which skips its own limiter: the same per-account/address limiter as
  // /api/auth/sign-in/email applies here.
  default: async (event) => {
    const { request, url, setHeaders } = event;
    const form = await request.formData();
    const email = String(form.get('email') ?? '').trim();
    const password = String(form.get('password') ?? '');
    if (!email || !password) return fail(400, { email, error: 'Email and password are required.' });
    const ip = clientAddress(event);
    const limiter = getSignInLimiter();
    const wait = await limiter.check(ip, email);
    if (wait) {
      setHeaders({ 'retry-after': String(wait) });
      return fail(429, { email, error: `Too many sign-in attempts. Try again in ${wait} s.` });
    }
    const { auth } = await getServer();
    const headers = new Headers(request.headers);
    headers.set(CLIENT_IP_HEADER, ip);
    try {
      await auth.api.signInEmail({ body: { email, password }, headers });
    } catch (err) {
      if (err instanceof APIError && err.statusCode === 401) await limiter.fail(ip, email);
      const msg = err instanceof APIError ? err.message : 'Sign-in failed.';
      return fail(400, { email, error: msg || 'Invalid email or password.' });
    }
    await limiter.succeed(ip, email);
    redirect(303, safeNext(url.searchParams.get('next')));
  },
};
