import { error, type RequestEvent } from '@sveltejs/kit';
import { appRouter, createCallerFactory, type TContext } from '@clusterscope/api';
import { createContext } from './context';
import { statusOf } from './status';

const factory = createCallerFactory(appRouter);
/** One caller resolution per request: the layout and page loads of a request share `locals`. */
const memos = new WeakMap<App.Locals, TContext['memo']>();

/** Server-side caller for load functions, scoped to the org in the URL. */
export async function getCaller(event: RequestEvent, org: string) {
  const ctx = await createContext(event);
  let cache = memos.get(event.locals);
  if (!cache) memos.set(event.locals, (cache = new Map()));
  return factory({ ...ctx, orgSlug: org, memo: cache });
}

/** Runs a procedure in a load function; tRPC errors become SvelteKit error pages with the same status. */
export async function load<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    // Unmapped codes (INTERNAL_SERVER_ERROR) are unexpected: handleError logs them and shows only an id.
    const status = statusOf(err);
    if (status) error(status, (err as Error).message);
    throw err;
  }
}
