/**
 * Stand-ins for the GitHub REST API (issue comments, check runs) and GitLab's merge-request notes API on one
 * loopback server, for the CLI's unit tests and the e2e workflow runs: tests assert on the requests it
 * received (`calls`) and on what it holds (`comments`, `checks`, `notes`).
 * - GitHub at `${url}/gh`, repository acme/db: token `gh-write` may write; `gh-read` may only read, and a
 *   write answers 403 as GitHub does for a read-only GITHUB_TOKEN.
 * - GitLab at `${url}/gl/api/v4`, any project and merge request: token `gl-write`.
 * - `other` answers every other path (a fake of the Clusterscope API in the unit tests); recorded in `calls` too.
 */
import http from 'node:http';
import { listenOnLoopback } from './loopback';

export type TForgeCall = {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
  auth: string | undefined;
};
export type TForgeAnswer = { status: number; body: unknown };

export async function startForge(o: { other?: (call: TForgeCall) => TForgeAnswer | undefined } = {}) {
  const calls: TForgeCall[] = [];
  const comments = new Map<number, { id: number; body: string }[]>();
  const checks = new Map<number, Record<string, unknown>>();
  /** Merge-request notes by `<project>!<iid>`. */
  const notes = new Map<string, { id: number; body: string }[]>();
  let nextId = 1000;

  const answer = (req: http.IncomingMessage, url: URL, call: TForgeCall): TForgeAnswer => {
    const send = (status: number, body: unknown) => ({ status, body });
    const { body } = call;
    const p = url.pathname;
    let m: RegExpExecArray | null;
    if (p.startsWith('/gh/')) {
      const token = req.headers.authorization;
      if (token !== 'Bearer gh-write' && token !== 'Bearer gh-read')
        return send(401, { message: 'Bad credentials' });
      if (req.method !== 'GET' && token !== 'Bearer gh-write')
        return send(403, {
          message: 'Resource not accessible by integration',
          documentation_url: 'https://docs.github.com/rest',
        });
      if ((m = /^\/gh\/repos\/acme\/db\/issues\/(\d+)\/comments$/.exec(p))) {
        const list = comments.get(Number(m[1])) ?? [];
        comments.set(Number(m[1]), list);
        if (req.method === 'GET') {
          const page = Number(url.searchParams.get('page') ?? 1);
          return send(200, list.slice((page - 1) * 100, page * 100));
        }
        const c = { id: nextId++, body: String(body?.body) };
        list.push(c);
        return send(201, c);
      }
      if ((m = /^\/gh\/repos\/acme\/db\/issues\/comments\/(\d+)$/.exec(p)) && req.method === 'PATCH') {
        const id = Number(m[1]);
        const c = [...comments.values()].flat().find((x) => x.id === id);
        if (!c) return send(404, { message: 'Not Found' });
        c.body = String(body?.body);
        return send(200, c);
      }
      if (p === '/gh/repos/acme/db/check-runs' && req.method === 'POST') {
        const id = nextId++;
        checks.set(id, { ...body });
        return send(201, { id });
      }
      if ((m = /^\/gh\/repos\/acme\/db\/check-runs\/(\d+)$/.exec(p)) && req.method === 'PATCH') {
        const c = checks.get(Number(m[1]));
        if (!c) return send(404, { message: 'Not Found' });
        Object.assign(c, body);
        return send(200, { id: Number(m[1]) });
      }
      return send(404, { message: 'Not Found' });
    }
    if ((m = /^\/gl\/api\/v4\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes(?:\/(\d+))?$/.exec(p))) {
      if (req.headers['private-token'] !== 'gl-write') return send(401, { message: '401 Unauthorized' });
      const key = `${decodeURIComponent(m[1])}!${m[2]}`;
      const list = notes.get(key) ?? [];
      notes.set(key, list);
      if (req.method === 'GET') return send(200, list);
      if (req.method === 'POST') {
        const n = { id: nextId++, body: String(body?.body) };
        list.push(n);
        return send(201, n);
      }
      const id = Number(m[3]);
      const n = list.find((x) => x.id === id);
      if (req.method === 'PUT' && n) {
        n.body = String(body?.body);
        return send(200, n);
      }
      return send(404, { message: '404 Not found' });
    }
    return o.other?.(call) ?? send(404, { message: 'Not Found' });
  };

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://x');
      const call: TForgeCall = {
        method: req.method!,
        path: url.pathname + url.search,
        body: raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined,
        auth: (req.headers.authorization ?? req.headers['private-token']) as string | undefined,
      };
      calls.push(call);
      const a = answer(req, url, call);
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(a.body));
    });
  });
  return { ...(await listenOnLoopback(server)), calls, comments, checks, notes };
}

export type TForge = Awaited<ReturnType<typeof startForge>>;
