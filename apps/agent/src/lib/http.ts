import http from 'node:http';
import type https from 'node:https';

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface HttpRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
  /** Response bodies beyond this are truncated (protects memory). */
  maxBodyBytes?: number;
  /** https only: CA, client certificate, SNI name, verification. */
  tls?: Pick<https.RequestOptions, 'ca' | 'cert' | 'key' | 'servername' | 'rejectUnauthorized'>;
}

/** Thrown when the server can't be reached at all (DNS, refused, timeout). */
export class UnreachableError extends Error {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach ${url}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** node:https (and tls) only once an https URL is used: an http-only agent never pays their memory. */
export async function httpModule(protocol: string): Promise<typeof http | typeof https> {
  return protocol === 'https:' ? (await import('node:https')).default : http;
}

/** Minimal HTTP(S) client on node:http (lighter than fetch/undici for a long-running daemon). */
export async function httpRequest(url: string, opts: HttpRequestOptions = {}): Promise<HttpResponse> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UnreachableError(url, new Error('invalid URL'));
  }
  const mod = await httpModule(parsed.protocol);
  const maxBody = opts.maxBodyBytes ?? 4 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...opts.headers };
    if (opts.body !== undefined) headers['content-length'] = Buffer.byteLength(opts.body);
    const req = mod.request(
      parsed,
      {
        method: opts.method ?? 'GET',
        headers,
        agent: false,
        timeout: opts.timeoutMs ?? 10_000,
        ...(parsed.protocol === 'https:' ? opts.tls : undefined),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < maxBody) chunks.push(c);
          size += c.length;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8').slice(0, maxBody),
          }),
        );
        res.on('error', (e) => reject(new UnreachableError(url, e)));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timed out after ${opts.timeoutMs ?? 10_000} ms`)));
    req.on('error', (e) => reject(new UnreachableError(url, e)));
    if (opts.body !== undefined) req.end(opts.body);
    else req.end();
  });
}

/** Retry-After as seconds or HTTP date → ms; undefined when absent/invalid. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
