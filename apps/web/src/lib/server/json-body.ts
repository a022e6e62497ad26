/** Bodies of API routes other than ingest (which has INGEST_MAX_BYTES). */
export const API_MAX_BYTES = 1024 * 1024;
/** Bulk uploads (run samples, raw tool output up to 8 MB of text once JSON-escaped) get more room. */
export const BULK_MAX_BYTES = 16 * 1024 * 1024;

/** The body limit of an API path (ingest has its own, INGEST_MAX_BYTES). */
export function maxBodyBytes(pathname: string): number {
  return /^\/api\/(v1|trpc)\/.*(samples|output)/i.test(pathname) ? BULK_MAX_BYTES : API_MAX_BYTES;
}

/** Deepest JSON nesting accepted; checked before JSON.parse or validation can recurse on it. */
export const JSON_MAX_DEPTH = 64;

/** Deepest nesting of objects/arrays in `text`, stopping early once it exceeds `stopAt`. Strings are skipped. */
export function jsonDepth(text: string, stopAt = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max && (max = depth) > stopAt) return max;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

function problem(status: number, code: string, message: string): Response {
  return new Response(JSON.stringify({ message, code }), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
}

export const kb = (n: number) => `${Math.round(n / 1024)} KB`;

/**
 * Reads an API request's body within `maxBytes` (413 above it) and rejects JSON nested deeper than
 * `maxDepth` (400), in the body or in tRPC's `?input=`. Returns a replayable copy of the request, or the
 * error response to send.
 */
export async function guardJsonRequest(
  request: Request,
  opts: { maxBytes?: number; maxDepth?: number } = {},
): Promise<Request | Response> {
  const maxBytes = opts.maxBytes ?? maxBodyBytes(new URL(request.url).pathname);
  const maxDepth = opts.maxDepth ?? JSON_MAX_DEPTH;
  const tooLarge = () => problem(413, 'PAYLOAD_TOO_LARGE', `request body exceeds ${kb(maxBytes)}`);
  const tooDeep = (where: string) =>
    problem(400, 'BAD_REQUEST', `${where}: JSON nested deeper than ${maxDepth} levels`);

  const input = new URL(request.url).searchParams.get('input');
  if (input && jsonDepth(input, maxDepth) > maxDepth) return tooDeep('input');
  if (request.method === 'GET' || request.method === 'HEAD' || !request.body) return request;

  const read = await readCapped(request, maxBytes);
  if (!read) return tooLarge();
  const bytes = Buffer.concat(read.chunks, read.size);
  if (jsonDepth(bytes.toString('utf8'), maxDepth) > maxDepth) return tooDeep('body');
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: bytes,
    signal: request.signal,
  });
}

/** A body's chunks, or null once it is larger than `maxBytes` (declared or streamed; the rest is not read). */
export async function readCapped(
  request: Request,
  maxBytes: number,
): Promise<{ chunks: Uint8Array[]; size: number } | null> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) return null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (!request.body) return { chunks, size };
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { chunks, size };
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
}

/** `POST /api/v1/runs/{id}/output` (REST) also takes the raw tool output as a text/plain body. */
export const OUTPUT_PATH = /^\/api\/v1\/runs\/([^/]+)\/output\/?$/;

/** The output route's request with a text/plain body (`curl --data-binary @out.txt`). */
export function isTextOutput(request: Request): boolean {
  const type = (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  return (
    request.method === 'POST' && type === 'text/plain' && OUTPUT_PATH.test(new URL(request.url).pathname)
  );
}
