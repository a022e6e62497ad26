import { randomUUID } from 'node:crypto';
import type { Handle, HandleServerError, RequestEvent, ServerInit } from '@sveltejs/kit';
import { isAuthPath } from 'better-auth/svelte-kit';
import { building } from '$app/environment';
import { isAllowedAuthRoute } from '$lib/server/auth-routes';
import { crossSiteFormResponse, isCrossSiteForm } from '$lib/server/csrf';
import { CLIENT_IP_HEADER, clientAddress } from '$lib/server/client-address';
import { getServer, getSignInLimiter, log, shutdown, startBackground } from '$lib/server/deps';
import { getEnv } from '$lib/server/env';
import { serverTiming, withTimings } from '$lib/server/timing';
import { startDemo } from '$lib/server/demo';
import { AUTH_MAX_BYTES, kb, maxBodyBytes, readCapped } from '$lib/server/json-body';
import { startSweeper } from '$lib/server/job-sweeper';
import { startAlerting } from '$lib/server/alerting';
import { startScheduler } from '$lib/server/scheduler';
import { tooManySignIns } from '$lib/server/sign-in-limit';

export const init: ServerInit = async () => {
  if (building) return;
  // Started by the launcher: exit with it, so a kill -9 of `npm start` leaves no orphan holding the port.
  if (process.send) process.on('disconnect', () => process.exit(0));
  // adapter-node closes the HTTP server on SIGINT/SIGTERM, then emits this; pools and timers would keep us alive.
  process.once('sveltekit:shutdown', () => {
    setTimeout(() => process.exit(0), 5000).unref();
    void shutdown().finally(() => process.exit(0));
  });
  try {
    await getServer();
  } catch (err) {
    // One clear line, then exit: the launcher reports it and stops embedded Postgres.
    console.error(`clusterscope: start-up failed: ${(err as Error).message}`);
    process.exit(1);
  }
  await startBackground([startDemo, startSweeper, startAlerting, startScheduler]);
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const tooLarge = (maxBytes: number) =>
  json(413, { message: `request body exceeds ${kb(maxBytes)}`, code: 'PAYLOAD_TOO_LARGE' });

/**
 * better-auth's routes, with the resolved client address in CLIENT_IP_HEADER (its limiter keys by that; a
 * client's own copy of the header is replaced) and failed email sign-ins counted per account and address.
 */
async function handleAuth(
  event: RequestEvent,
  auth: Awaited<ReturnType<typeof getServer>>['auth'],
  ip: string,
): Promise<Response> {
  const { request } = event;
  const headers = new Headers(request.headers);
  headers.set(CLIENT_IP_HEADER, ip);
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  let body: string | undefined;
  if (hasBody) {
    // A chunked body has no declared length for serve's check: it is read only up to the limit.
    const read = await readCapped(request, AUTH_MAX_BYTES);
    if (!read) return tooLarge(AUTH_MAX_BYTES);
    body = new TextDecoder().decode(Buffer.concat(read.chunks, read.size));
  }
  let account = '';
  if (event.url.pathname === '/api/auth/sign-in/email' && request.method === 'POST') {
    try {
      account = String((JSON.parse(body ?? '') as { email?: unknown }).email ?? '');
    } catch {
      /* better-auth answers the malformed body */
    }
    const wait = await getSignInLimiter().check(ip, account);
    if (wait) return tooManySignIns(wait);
  }
  const res = await auth.handler(
    new Request(request.url, { method: request.method, headers, body, signal: request.signal }),
  );
  if (account) {
    if (res.ok) await getSignInLimiter().succeed(ip, account);
    else if (res.status === 401) await getSignInLimiter().fail(ip, account);
  }
  return res;
}

/** Headers every response carries; pages get their CSP from kit.csp, everything else a deny-all one. */
function secure(res: Response, authenticated: boolean): Response {
  try {
    res.headers.set('x-content-type-options', 'nosniff');
  } catch {
    res = new Response(res.body, res); // immutable headers (e.g. a fetched response): copy
    res.headers.set('x-content-type-options', 'nosniff');
  }
  const h = res.headers;
  h.set('x-frame-options', 'DENY');
  h.set('referrer-policy', 'strict-origin-when-cross-origin');
  if (!h.has('content-security-policy'))
    h.set('content-security-policy', "default-src 'none'; frame-ancestors 'none'; base-uri 'none'");
  if (authenticated && !/\bpublic\b/.test(h.get('cache-control') ?? ''))
    h.set('cache-control', 'private, no-store');
  return res;
}

export const handle: Handle = (input) => {
  if (building || !getEnv().SERVER_TIMING) return serve(input);
  return withTimings(async () => {
    const res = await serve(input);
    const value = serverTiming();
    try {
      if (value) res.headers.set('server-timing', value);
    } catch {
      // a response with immutable headers (fetched through) keeps its own
    }
    return res;
  });
};

const serve: Handle = async ({ event, resolve }) => {
  if (building) return resolve(event);
  if (isCrossSiteForm(event.request, event.url)) return secure(crossSiteFormResponse(event.request), false);
  const ip = clientAddress(event);
  const { pathname } = event.url;
  const declared = Number(event.request.headers.get('content-length') ?? 0);
  const maxBytes = maxBodyBytes(pathname);
  if (declared > maxBytes && pathname !== '/api/v1/ingest') return secure(tooLarge(maxBytes), false);

  const { auth } = await getServer();
  event.locals.user = null;
  if (!pathname.startsWith('/api/v1') || event.request.headers.has('cookie')) {
    const session = await auth.api.getSession({ headers: event.request.headers }).catch(() => null);
    if (session)
      event.locals.user = { id: session.user.id, email: session.user.email, name: session.user.name };
  }
  const authenticated = !!event.locals.user || event.request.headers.has('authorization');
  const res = !isAuthPath(event.url.toString(), auth.options)
    ? await resolve(event)
    : isAllowedAuthRoute(event.request.method, pathname)
      ? await handleAuth(event, auth, ip)
      : json(404, { message: `not found: ${event.request.method} ${pathname}`, code: 'NOT_FOUND' });
  return secure(res, authenticated || event.request.headers.has('cookie'));
};

/** Unexpected errors: the detail goes to the log under an id; the client gets only the id. */
export const handleError: HandleServerError = ({ error, event, status, message }) => {
  if (status < 500) return { message };
  const id = randomUUID();
  log.error(
    {
      id,
      method: event.request.method,
      path: event.url.pathname,
      err: error instanceof Error ? (error.stack ?? error.message) : String(error),
    },
    'request failed',
  );
  return { message: 'internal error', id };
};
