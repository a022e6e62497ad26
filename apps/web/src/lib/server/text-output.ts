import type { RequestEvent } from '@sveltejs/kit';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { appRouter, createCallerFactory, retryAfterHeaders } from '@clusterscope/api';
import { OUTPUT_MAX_BYTES, ZFormat } from '@clusterscope/schema';
import { createContext } from './context';
import { kb, OUTPUT_PATH, readCapped } from './json-body';

const factory = createCallerFactory(appRouter);

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });

/**
 * Answers a text/plain output post through runs.addOutputBytes: the body is read in chunks up to
 * OUTPUT_MAX_BYTES (413 past it, without reading the rest) and handed over as bytes, which the parse
 * worker decodes. The event loop never turns the body into a string or JSON: an 8 MB output that takes
 * the whole parse budget must not stall other requests.
 */
export async function postTextOutput(event: RequestEvent): Promise<Response> {
  const url = new URL(event.request.url);
  const id = decodeURIComponent(OUTPUT_PATH.exec(url.pathname)![1]);
  const name = url.searchParams.get('tool');
  const tool = name === null ? undefined : ZFormat.safeParse(name).data;
  if (name !== null && !tool)
    return answer(400, { message: `tool: unknown tool '${name}'`, code: 'BAD_REQUEST' });
  const read = await readCapped(event.request, OUTPUT_MAX_BYTES);
  if (!read)
    return answer(413, {
      message: `request body exceeds ${kb(OUTPUT_MAX_BYTES)}`,
      code: 'PAYLOAD_TOO_LARGE',
    });
  // A body over half a Buffer pool gets a buffer of its own, which the parse worker takes without a copy.
  const bytes = Buffer.concat(read.chunks, read.size);
  try {
    const caller = factory(await createContext(event));
    const out = await caller.runs.addOutputBytes({ id, bytes, ...(tool ? { tool } : {}) });
    return answer(200, out);
  } catch (err) {
    if (!(err instanceof TRPCError) || err.code === 'INTERNAL_SERVER_ERROR') throw err;
    return answer(
      getHTTPStatusCodeFromError(err),
      { message: err.message, code: err.code },
      retryAfterHeaders([err]),
    );
  }
}
