import type { Handle, ServerInit } from '@sveltejs/kit';
import { svelteKitHandler } from 'better-auth/svelte-kit';
import { building } from '$app/environment';
import { getServer, shutdown } from '$lib/server/deps';
import { startDemo } from '$lib/server/demo';
import { startJobSweeperOnce } from '$lib/server/job-sweeper';

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
  startDemo();
  await startJobSweeperOnce();
};

export const handle: Handle = async ({ event, resolve }) => {
  const { auth } = await getServer();
  event.locals.user = null;
  if (!event.url.pathname.startsWith('/api/v1') || event.request.headers.has('cookie')) {
    const session = await auth.api.getSession({ headers: event.request.headers }).catch(() => null);
    if (session)
      event.locals.user = { id: session.user.id, email: session.user.email, name: session.user.name };
  }
  return svelteKitHandler({ event, resolve, auth, building });
};
