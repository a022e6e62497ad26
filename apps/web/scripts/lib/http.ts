/** HTTP helpers of the scripts that drive a running app (bench:ingest, bench:load, bench:pages). */
import fs from 'node:fs';
import path from 'node:path';

/** The body of a 2xx answer; otherwise throws naming `what`, the status and the start of the body. */
export async function ok(res: Response, what: string): Promise<string> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  return text;
}

/** Signs in with the demo admin login the launcher wrote into `dataDir`; returns the (2xx) answer. */
export async function signInAnswer(base: string, dataDir: string): Promise<Response> {
  const txt = fs.readFileSync(path.join(dataDir, 'admin-login.txt'), 'utf8');
  const get = (k: string) => new RegExp(`^${k}: (.+)$`, 'm').exec(txt)?.[1]?.trim() ?? '';
  const res = await fetch(`${base}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email: get('email'), password: get('password') }),
  });
  await ok(res, 'sign-in');
  return res;
}

/** {@link signInAnswer}'s session as a Cookie header. */
export async function signIn(base: string, dataDir: string): Promise<string> {
  return (await signInAnswer(base, dataDir)).headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

type TBody = NonNullable<RequestInit['body']>;

/** Posts one gzipped ingest batch with `token`, as the agent does; the answer is the caller's to read. */
export function sendIngest(
  base: string,
  token: string,
  body: TBody,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${base}/api/v1/ingest`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    },
    body,
    signal,
  });
}

/** {@link sendIngest}; resolves with the rows accepted (throws unless 202). */
export async function postIngest(base: string, token: string, body: TBody): Promise<number> {
  const res = await sendIngest(base, token, body);
  const text = await res.text();
  if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { accepted: number }).accepted;
}
