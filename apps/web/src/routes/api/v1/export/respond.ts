import { error, type RequestEvent } from '@sveltejs/kit';
import { getCaller } from '$lib/server/caller';
import { statusOf } from '$lib/server/status';

/**
 * Runs an export procedure for the org in `?org=` (browser session) or the bearer token's org,
 * and answers with a file download.
 */
export async function download(
  event: RequestEvent,
  fn: (
    api: Awaited<ReturnType<typeof getCaller>>,
  ) => Promise<{ filename: string; contentType: string; body: string }>,
): Promise<Response> {
  const api = await getCaller(event, event.url.searchParams.get('org') ?? '');
  try {
    const f = await fn(api);
    return new Response(f.body, {
      headers: {
        'content-type': f.contentType,
        'content-disposition': `attachment; filename="${f.filename.replace(/[^\w.-]/g, '_')}"`,
        'cache-control': 'no-store',
      },
    });
  } catch (err) {
    // Unmapped codes (INTERNAL_SERVER_ERROR) are unexpected: handleError logs them and answers an id.
    const status = statusOf(err);
    if (status) error(status, (err as Error).message);
    throw err;
  }
}

/** Query parameters except the routing ones. */
export function queryOf(url: URL, drop: string[] = ['org']): Record<string, string> {
  return Object.fromEntries([...url.searchParams].filter(([k, v]) => !drop.includes(k) && v !== ''));
}
