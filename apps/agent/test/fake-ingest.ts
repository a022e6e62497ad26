/** A fake of POST /api/v1/ingest with the server's contract: gzip JSON, bearer token, batchId dedup, 202. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { ZIngestBatch, type TIngestBatch } from '@clusterscope/schema';

export interface FakeIngest {
  url: string;
  port: number;
  /** Accepted batches by batchId (first acceptance only). */
  batches: Map<string, TIngestBatch>;
  requests: number;
  duplicates: number;
  /** Answer this status (with optional Retry-After) instead of accepting, while set. */
  failWith: { status: number; retryAfter?: string; body?: string } | undefined;
  /** Hold requests for this long before answering (to kill an agent mid-send). */
  delayMs: number;
  onRequest?: () => void;
  close(): Promise<void>;
}

export async function startFakeIngest(opts: { token?: string; port?: number } = {}): Promise<FakeIngest> {
  const token = opts.token ?? 'test-token';
  const state: Omit<FakeIngest, 'url' | 'port' | 'close'> = {
    batches: new Map(),
    requests: 0,
    duplicates: 0,
    failWith: undefined,
    delayMs: 0,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests++;
      state.onRequest?.();
      const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(body));
        };
        if (state.delayMs > 0) setTimeout(send, state.delayMs);
        else send();
      };
      if (req.method !== 'POST' || req.url !== '/api/v1/ingest') return answer(404, { error: 'not found' });
      if (req.headers.authorization !== `Bearer ${token}`) return answer(401, { error: 'invalid token' });
      if (state.failWith) {
        const f = state.failWith;
        return answer(
          f.status,
          f.body ?? { error: `injected ${f.status}` },
          f.retryAfter ? { 'retry-after': f.retryAfter } : {},
        );
      }
      let raw: unknown;
      try {
        const buf = Buffer.concat(chunks);
        raw = JSON.parse(
          (req.headers['content-encoding'] === 'gzip' ? gunzipSync(buf) : buf).toString('utf8'),
        );
      } catch {
        return answer(400, { error: 'body is not gzip JSON' });
      }
      const parsed = ZIngestBatch.safeParse(raw);
      if (!parsed.success)
        return answer(400, {
          error: 'invalid batch',
          issues: parsed.error.issues.map((i) => i.path.join('.')),
        });
      const dup = state.batches.has(parsed.data.batchId);
      // Commit before answering, like the real server (202 only after ClickHouse confirmed).
      if (dup) state.duplicates++;
      else state.batches.set(parsed.data.batchId, parsed.data);
      answer(202, { accepted: dup ? 0 : parsed.data.samples.length, duplicate: dup });
    });
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  }) as FakeIngest;
}
