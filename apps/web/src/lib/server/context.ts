import type { RequestEvent } from '@sveltejs/kit';
import type { TContext } from '@clusterscope/api';
import { getServer } from './deps';
import { notify } from './live';

export function readBearer(req: Request): string | null {
  const h = req.headers.get('authorization');
  if (!h) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(h.trim());
  return m ? m[1] : h.trim();
}

export async function createContext(event: RequestEvent): Promise<TContext> {
  const { deps } = await getServer();
  return {
    deps,
    userId: event.locals.user?.id ?? null,
    bearer: readBearer(event.request),
    orgSlug: event.request.headers.get('x-org'),
    runtime: { notify },
  };
}
