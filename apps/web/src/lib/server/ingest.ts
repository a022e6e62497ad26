import { AppError, type TDeps } from '@clusterscope/services/core';
import { getIngestWriter, ingestPrepared } from '@clusterscope/services/ingest';
import { LATE_SAMPLES, SAMPLES } from '@clusterscope/services/reads';
import { authenticateToken, hasScope } from '@clusterscope/services/tenancy';
import { readBearer } from './context';
import { getIngestLimiter, getIngestPool, getServer } from './deps';
import { getEnv } from './env';
import { readCapped } from './json-body';
import { statusOf } from './status';
import { notify } from './live';

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
 * Reads a request body as sent, of at most `maxBytes`: Content-Length is checked first and the stream
 * is counted as it arrives. Gzip is inflated later, on an ingest worker, with the same cap (a gzip bomb
 * stops there). Throws BodyError (413/415).
 */
export async function readRawBody(
  request: Request,
  maxBytes: number,
): Promise<{ bytes: Buffer; gz: boolean }> {
  const enc = (request.headers.get('content-encoding') ?? '').trim().toLowerCase();
  const gz = enc === 'gzip' || enc === 'x-gzip';
  if (!gz && enc !== '' && enc !== 'identity')
    throw new BodyError(415, `unsupported Content-Encoding '${enc}' (use gzip or none)`);
  const tooLarge = () => new BodyError(413, `body exceeds INGEST_MAX_BYTES (${mb(maxBytes)})`);
  const read = await readCapped(request, maxBytes);
  if (!read) throw tooLarge();
  const { chunks, size } = read;
  // One allocation of exactly `size` bytes (its own ArrayBuffer, so it can move to a worker).
  const bytes = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { bytes, gz };
}

function fromAppError(err: AppError): Response {
  const extra: Record<string, unknown> = {};
  if (err.details?.dependency) extra.dependency = err.details.dependency;
  const headers: Record<string, string> = err.code === 'UNAUTHORIZED' ? { 'www-authenticate': 'Bearer' } : {};
  return errorResponse(statusOf(err) ?? 400, err.message, extra, headers);
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
  const rl = await getIngestLimiter(env.INGEST_RATE_PER_S).take(caller.tokenId);
  if (!rl.ok)
    return errorResponse(
      429,
      `rate limit of ${env.INGEST_RATE_PER_S} requests/s per token exceeded; retry after ${rl.retryAfterS}s`,
      {},
      { 'retry-after': String(rl.retryAfterS) },
    );

  let body: { bytes: Buffer; gz: boolean };
  try {
    body = await readRawBody(request, env.INGEST_MAX_BYTES);
  } catch (err) {
    if (err instanceof BodyError) return errorResponse(err.status, err.message);
    return errorResponse(400, `could not read the body: ${(err as Error).message}`);
  }
  let decoded;
  try {
    decoded = await getIngestPool().decode(body.bytes, body.gz, env.INGEST_MAX_BYTES);
  } catch (err) {
    return errorResponse(503, `ingest worker unavailable: ${(err as Error).message}`, {
      dependency: 'ingest-worker',
    });
  }
  if (!decoded.ok) {
    const { status, error, issues, issueCount } = decoded;
    return errorResponse(status, error, issues ? { issues, issueCount } : {});
  }

  const prepared = decoded.prepared;
  try {
    const res = await ingestPrepared(deps, caller, prepared, getIngestWriter(deps));
    if (!res.duplicate) {
      const base = { orgId: caller.orgId, topic: SAMPLES, clusterId: res.clusterId, kinds: res.kinds };
      notify(base);
      for (const runId of res.runIds.slice(0, 20)) notify({ ...base, runId });
      if (res.late) notify({ orgId: caller.orgId, topic: LATE_SAMPLES, clusterId: res.clusterId });
    }
    return new Response(JSON.stringify({ accepted: res.accepted, duplicate: res.duplicate }), {
      status: 202,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    });
  } catch (err) {
    if (err instanceof AppError) return fromAppError(err);
    return errorResponse(503, `ingest failed: ${(err as Error).message}`, { dependency: 'clickhouse' });
  } finally {
    prepared.drop();
  }
}
