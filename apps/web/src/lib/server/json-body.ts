import {
  JSON_MAX_DEPTH,
  jsonDepth,
  ParseTimeout,
  ParseWorkerError,
  type TParser,
} from '@clusterscope/services/ingest';

export { JSON_MAX_DEPTH, jsonDepth };

/** Bodies of API routes other than ingest (which has INGEST_MAX_BYTES). */
export const API_MAX_BYTES = 1024 * 1024;
/** Bulk uploads (run samples, raw tool output up to 8 MB of text once JSON-escaped) get more room. */
export const BULK_MAX_BYTES = 16 * 1024 * 1024;

/** better-auth's routes: sign-in, sign-up and the like take a few fields. */
export const AUTH_MAX_BYTES = 64 * 1024;

/** The body limit of an API path (ingest has its own, INGEST_MAX_BYTES). */
export function maxBodyBytes(pathname: string): number {
  if (pathname.startsWith('/api/auth/')) return AUTH_MAX_BYTES;
  return /^\/api\/(v1|trpc)\/.*(samples|output)/i.test(pathname) ? BULK_MAX_BYTES : API_MAX_BYTES;
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

/** REST routes whose JSON body carries a tool output (`output`, up to OUTPUT_MAX_BYTES before escaping). */
const BULK_JSON_PATH = /^\/api\/v1\/(runs|runs\/[^/]+\/output|agent\/jobs\/[^/]+\/output)\/?$/;

/** A JSON POST to a route whose body carries a tool output. */
export function isBulkJson(request: Request): boolean {
  return (
    request.method === 'POST' &&
    (request.headers.get('content-type') ?? '').includes('application/json') &&
    BULK_JSON_PATH.test(new URL(request.url).pathname)
  );
}

/** A JSON body as the REST handler takes it: the parsed value, or the parse failure it answers as PARSE_ERROR. */
export type TParsedBody = { ok: true; data: unknown } | { ok: false; cause: unknown };

/**
 * guardJsonRequest and the JSON.parse of a bulk JSON route's body (isBulkJson) on the parse worker: the event
 * loop only reads the bytes (413 above the path's limit) and hands them over, so an 8 MB body is never
 * scanned or parsed here. The answers are guardJsonRequest's (400 too deep) and the handler's (PARSE_ERROR);
 * besides `output`, more than API_MAX_BYTES of JSON is a 413, a decode past the parse budget a 422 and a dead
 * worker a 503.
 */
export async function readBulkJson(
  request: Request,
  parser: Pick<TParser, 'parseJson'>,
): Promise<TParsedBody | Response> {
  const maxBytes = maxBodyBytes(new URL(request.url).pathname);
  const input = new URL(request.url).searchParams.get('input');
  const tooDeep = (where: string) =>
    problem(400, 'BAD_REQUEST', `${where}: JSON nested deeper than ${JSON_MAX_DEPTH} levels`);
  if (input && jsonDepth(input, JSON_MAX_DEPTH) > JSON_MAX_DEPTH) return tooDeep('input');
  const read = await readCapped(request, maxBytes);
  if (!read) return problem(413, 'PAYLOAD_TOO_LARGE', `request body exceeds ${kb(maxBytes)}`);
  let body;
  try {
    body = await parser.parseJson(Buffer.concat(read.chunks, read.size), {
      maxDepth: JSON_MAX_DEPTH,
      bulkKey: 'output',
      maxOtherBytes: API_MAX_BYTES,
    });
  } catch (err) {
    if (err instanceof ParseTimeout)
      return problem(
        422,
        'UNPROCESSABLE_CONTENT',
        `body: could not be parsed in time (${err.budgetMs / 1000} s); send a shorter body`,
      );
    if (err instanceof ParseWorkerError) return problem(503, 'SERVICE_UNAVAILABLE', `body: ${err.message}`);
    throw err;
  }
  if (body.ok) return body;
  if (body.error === 'too-deep') return tooDeep('body');
  if (body.error === 'too-large') return problem(413, 'PAYLOAD_TOO_LARGE', body.message);
  return { ok: false, cause: new SyntaxError(body.message) };
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
    let next;
    try {
      next = await reader.read();
    } catch (err) {
      // adapter-node's BODY_SIZE_LIMIT (the largest of ours) errors the stream at the same byte: our 413.
      if ((err as { status?: number }).status === 413) return null;
      throw err;
    }
    const { done, value } = next;
    if (done) return { chunks, size };
    size += value.byteLength;
    if (size > maxBytes) {
      void drain(reader);
      return null;
    }
    chunks.push(value);
  }
}

/** Most bytes of an over-limit body read and dropped after its 413, before the connection is cut. */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Reads the rest of an over-limit body and drops it, so that its 413 reaches the client: cancelling the
 * stream destroys the socket (adapter-node), and a client still sending would never see the answer. A body
 * that goes on past DRAIN_MAX_BYTES is cancelled after all.
 */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let dropped = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if ((dropped += value.byteLength) > DRAIN_MAX_BYTES) return void (await reader.cancel());
    }
  } catch {
    // the client went away
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
