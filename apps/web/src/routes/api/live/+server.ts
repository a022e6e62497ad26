import { error } from '@sveltejs/kit';
import { AppError } from '@clusterscope/services/core';
import { resolveUserCaller } from '@clusterscope/services/tenancy';
import { getServer } from '$lib/server/deps';
import { getFanout, getLiveGate } from '$lib/server/live';
import type { RequestHandler } from './$types';

const enc = new TextEncoder();

/**
 * Server-sent events for one organization: `GET /api/live?org=<slug>` (session cookie, members only).
 * Each change notice is `event: <topic>` with `{clusterId, runId, kinds, ts}`; pages refetch what it names.
 * A comment line every 15 s keeps proxies from closing the stream. Notices go out through the shared
 * fan-out (serialised once per notice, one write per viewer per 20 ms window).
 */
export const GET: RequestHandler = async ({ url, locals, request }) => {
  if (!locals.user) error(401, 'sign in required');
  const slug = url.searchParams.get('org');
  if (!slug) error(400, 'missing ?org=<organization slug>');
  const { deps } = await getServer();
  let orgId: string;
  try {
    orgId = (await resolveUserCaller(deps, locals.user.id, slug)).orgId;
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') error(404, err.message);
    throw err;
  }

  const slot = getLiveGate().acquire(locals.user.id, orgId);
  if ('refused' in slot)
    return new Response(JSON.stringify({ message: slot.refused }), {
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '30' },
    });

  let cleanup = () => slot.release();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      let remove = () => {};
      cleanup = () => {
        if (!open) return;
        open = false;
        slot.release();
        remove();
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      };
      request.signal.addEventListener('abort', () => cleanup());
      // Frames are shared by every viewer of the org; enqueue only hands them to this stream's reader.
      remove = await getFanout().add(orgId, (bytes) => {
        if (!open) return;
        try {
          controller.enqueue(bytes);
        } catch {
          cleanup();
        }
      });
      if (!open) return remove();
      // Reconnect delay for EventSource, then an initial event so the client knows it is live.
      controller.enqueue(enc.encode(`retry: 3000\nevent: ready\ndata: {"ts":${Date.now()}}\n\n`));
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  });
};
