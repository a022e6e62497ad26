import type https from 'node:https';
import { httpModule } from '../../lib/http';

/** Largest scrape body read (a bigger one is cut there and the scrape fails). */
const MAX_BODY = 32 * 1024 * 1024;

export interface ScrapeRequest {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  tls?: Pick<https.RequestOptions, 'ca' | 'cert' | 'key' | 'servername' | 'rejectUnauthorized'>;
}

/**
 * GET `url` and hand the body to `onChunk` as it arrives (the socket's bytes, undecoded), so a scrape never
 * holds the whole exposition in memory. Rejects on a non-200 answer (with the start of its body), a timeout or a body over 32 MB.
 */
export async function streamGet(req: ScrapeRequest, onChunk: (bytes: Buffer) => void): Promise<void> {
  const u = new URL(req.url);
  const mod = await httpModule(u.protocol);
  return new Promise((resolve, reject) => {
    const r = mod.request(
      u,
      {
        method: 'GET',
        headers: req.headers,
        agent: false,
        timeout: req.timeoutMs,
        ...(u.protocol === 'https:' ? req.tls : undefined),
      },
      (res) => {
        if (res.statusCode !== 200) {
          let start = '';
          res.on('data', (c: Buffer) => (start = (start + c.toString('utf8')).slice(0, 200)));
          res.on('end', () => reject(new Error(`GET ${req.url}: HTTP ${res.statusCode} ${start}`)));
          return;
        }
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY) {
            res.destroy(new Error(`GET ${req.url}: body over ${MAX_BODY} bytes`));
            return;
          }
          try {
            onChunk(c);
          } catch (e) {
            res.destroy(e as Error);
          }
        });
        res.on('end', resolve);
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error(`GET ${req.url}: timed out after ${req.timeoutMs} ms`)));
    r.on('error', (e) =>
      reject(e.message.startsWith('GET ') ? e : new Error(`GET ${req.url}: ${e.message}`)),
    );
    r.end();
  });
}
