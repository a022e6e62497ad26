import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import {
  AppError,
  authenticateToken,
  getIngestWriter,
  hasScope,
  ingestBatch,
  validateIngestBatch,
  type TDeps,
  type TErrorCode,
} from '@clusterscope/services';
import { readBearer } from './context';
import { getServer } from './deps';
import { getEnv } from './env';
import { notify } from './live';
import { createRateLimiter, type TRateLimiter } from './rate-limit';

const gunzipAsync = promisify(gunzip);

const STATUS: Record<TErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNPROCESSABLE_CONTENT: 422,
  TOO_MANY_REQUESTS: 429,
  SERVICE_UNAVAILABLE: 503,
};

/** A JSON error answer `{error, issues?, dependency?}`; never cached. */
export function errorResponse(
  status: number,
  error: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ error, ...extra }), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });
}

export class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 3 : 1)} MB`;

/**
 * Reads a request body of at most `maxBytes`, compressed and decompressed: Content-Length is checked
 * first, the stream is counted as it arrives, and gzip is inflated with `maxOutputLength` so a gzip bomb
 * stops at the cap instead of filling memory. Throws BodyError (413/415/400).
 */
export async function readBody(request: Request, maxBytes: number): Promise<Buffer> {
  const enc = (request.headers.get('content-encoding') ?? '').trim().toLowerCase();
  const gz = enc === 'gzip' || enc === 'x-gzip';
  if (!gz && enc !== '' && enc !== 'identity')
    throw new BodyError(415, `unsupported Content-Encoding '${enc}' (use gzip or none)`);
  const tooLarge = () => new BodyError(413, `body exceeds INGEST_MAX_BYTES (${mb(maxBytes)})`);
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  const buf = Buffer.concat(chunks, size);
  if (!gz) return buf;
  try {
    return await gunzipAsync(buf, { maxOutputLength: maxBytes });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError)
      throw new BodyError(413, `decompressed body exceeds INGEST_MAX_BYTES (${mb(maxBytes)})`);
    throw new BodyError(400, `body is not valid gzip: ${(err as Error).message}`);
  }
}

function parseJson(buf: Buffer): unknown {
  if (buf.length === 0) throw new BodyError(400, 'empty body: expected a JSON ingest batch');
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch (err) {
    throw new BodyError(400, `body is not valid JSON: ${(err as Error).message}`);
  }
}

const g = globalThis as unknown as { __csIngestLimiter?: { rate: number; limiter: TRateLimiter } };

function getLimiter(rate: number): TRateLimiter {
  if (g.__csIngestLimiter?.rate !== rate) g.__csIngestLimiter = { rate, limiter: createRateLimiter(rate) };
  return g.__csIngestLimiter.limiter;
}

function fromAppError(err: AppError): Response {
  const extra: Record<string, unknown> = {};
  if (err.details?.dependency) extra.dependency = err.details.dependency;
  const headers: Record<string, string> = err.code === 'UNAUTHORIZED' ? { 'www-authenticate': 'Bearer' } : {};
  return errorResponse(STATUS[err.code] ?? 400, err.message, extra, headers);
}

/**
 * POST /api/v1/ingest: auth → rate limit → bounded body → validation → ClickHouse (via the coalescing
 * writer) → 202. Bad input is a 4xx naming the problem; only a dependency outage is a 503.
 */
export async function handleIngest(request: Request): Promise<Response> {
  const env = getEnv();
  let deps: TDeps;
  try {
    deps = (await getServer()).deps;
  } catch (err) {
    return errorResponse(503, `server not ready: ${(err as Error).message}`, { dependency: 'clickhouse' });
  }
  const raw = readBearer(request);
  if (!raw)
    return errorResponse(401, 'missing Authorization: Bearer <token>', {}, { 'www-authenticate': 'Bearer' });
  let caller;
  try {
    caller = await authenticateToken(deps, raw);
  } catch (err) {
    if (err instanceof AppError) return fromAppError(err);
    return errorResponse(503, `PostgreSQL is unavailable: ${(err as Error).message}`, {
      dependency: 'postgres',
    });
  }
  if (!hasScope(caller, 'ingest'))
    return errorResponse(403, `token lacks the 'ingest' scope (has: ${caller.scopes.join(', ')})`);
  const rl = getLimiter(env.INGEST_RATE_PER_S).take(caller.tokenId);
  if (!rl.ok)
    return errorResponse(
      429,
      `rate limit of ${env.INGEST_RATE_PER_S} requests/s per token exceeded; retry after ${rl.retryAfterS}s`,
      {},
      { 'retry-after': String(rl.retryAfterS) },
    );

  let body: unknown;
  try {
    body = parseJson(await readBody(request, env.INGEST_MAX_BYTES));
  } catch (err) {
    if (err instanceof BodyError) return errorResponse(err.status, err.message);
    return errorResponse(400, `could not read the body: ${(err as Error).message}`);
  }
  const v = validateIngestBatch(body);
  if (!v.ok) {
    const more = v.total > v.issues.length ? ` (showing the first ${v.issues.length})` : '';
    return errorResponse(400, `invalid ingest batch: ${v.total} issue(s)${more}`, {
      issues: v.issues,
      issueCount: v.total,
    });
  }

  try {
    const res = await ingestBatch(deps, caller, v.batch, getIngestWriter(deps));
    if (!res.duplicate) {
      const base = { orgId: caller.orgId, topic: 'samples', clusterId: res.clusterId, kinds: res.kinds };
      notify(base);
      for (const runId of res.runIds.slice(0, 20)) notify({ ...base, runId });
    }
    return new Response(JSON.stringify({ accepted: res.accepted, duplicate: res.duplicate }), {
      status: 202,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    });
  } catch (err) {
    if (err instanceof AppError) return fromAppError(err);
    return errorResponse(503, `ingest failed: ${(err as Error).message}`, { dependency: 'clickhouse' });
  }
}
