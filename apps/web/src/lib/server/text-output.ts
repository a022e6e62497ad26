import { kb, readCapped } from './json-body';

/** `POST /api/v1/runs/{id}/output` (REST) also takes the raw tool output as a text/plain body. */
const OUTPUT_PATH = /^\/api\/v1\/runs\/[^/]+\/output\/?$/;

const problem = (status: number, message: string) =>
  new Response(JSON.stringify({ message, code: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST' }), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });

/**
 * A text/plain POST to a run's output route (`curl --data-binary @out.txt`) as the JSON body the procedure
 * takes: `{output: <body>, tool?: <?tool=>}`. Any other request is returned unchanged; a body above
 * `maxBytes` is a 413, one that is not UTF-8 a 400.
 */
export async function textOutputAsJson(request: Request, maxBytes: number): Promise<Request | Response> {
  const url = new URL(request.url);
  const type = (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (request.method !== 'POST' || type !== 'text/plain' || !OUTPUT_PATH.test(url.pathname)) return request;
  const read = await readCapped(request, maxBytes);
  if (!read) return problem(413, `request body exceeds ${kb(maxBytes)}`);
  let output: string;
  try {
    output = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(read.chunks, read.size));
  } catch {
    return problem(400, 'output: the text/plain body is not UTF-8');
  }
  const tool = url.searchParams.get('tool');
  const headers = new Headers(request.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  return new Request(url, {
    method: 'POST',
    headers,
    body: JSON.stringify(tool === null ? { output } : { output, tool }),
    signal: request.signal,
  });
}
