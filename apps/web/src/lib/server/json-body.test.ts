import { describe, expect, it } from 'vitest';
import { inThreadParser, ParseTimeout, ParseWorkerError } from '@clusterscope/services/ingest';
import {
  API_MAX_BYTES,
  AUTH_MAX_BYTES,
  BULK_MAX_BYTES,
  guardJsonRequest,
  isBulkJson,
  isTextOutput,
  readBulkJson,
  jsonDepth,
  maxBodyBytes,
} from './json-body';

const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('jsonDepth', () => {
  it('counts objects and arrays, not brackets inside strings', () => {
    expect(jsonDepth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(jsonDepth('{"a":"[[[[{{{\\"[["}')).toBe(1);
    expect(jsonDepth('1')).toBe(0);
  });
  it('stops early past the limit', () => {
    expect(jsonDepth(nested(100_000), 64)).toBe(65);
  });
});

describe('guardJsonRequest', () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    new Request('http://x/api/v1/runs', { method: 'POST', body, headers });

  it('answers 413 above the size limit, declared or streamed', async () => {
    const declared = await guardJsonRequest(post('x'.repeat(2000)), { maxBytes: 1000 });
    expect((declared as Response).status).toBe(413);
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 4; i++) c.enqueue(new Uint8Array(400));
        c.close();
      },
    });
    const streamed = await guardJsonRequest(
      new Request('http://x/a', { method: 'POST', body: stream, duplex: 'half' } as RequestInit),
      { maxBytes: 1000 },
    );
    expect((streamed as Response).status).toBe(413);
  });

  it('answers 400 naming the depth limit, in the body or ?input=', async () => {
    const res = (await guardJsonRequest(post(`{"params":${nested(65)}}`))) as Response;
    expect(res.status).toBe(400);
    expect((await res.json()).message).toMatch(/nested deeper than 64/);
    const q = await guardJsonRequest(
      new Request(`http://x/api/trpc/a?input=${encodeURIComponent(nested(70))}`),
    );
    expect((q as Response).status).toBe(400);
  });

  it('passes an ordinary body through, replayable', async () => {
    const req = await guardJsonRequest(post(`{"params":${nested(10)}}`));
    expect(req).toBeInstanceOf(Request);
    expect(await (req as Request).text()).toBe(`{"params":${nested(10)}}`);
  });
});

describe('maxBodyBytes', () => {
  it('gives bulk uploads more room than other API routes', () => {
    expect(maxBodyBytes('/api/v1/runs/abc/output')).toBe(BULK_MAX_BYTES);
    expect(maxBodyBytes('/api/v1/runs/abc/samples')).toBe(BULK_MAX_BYTES);
    expect(maxBodyBytes('/api/v1/runs')).toBe(API_MAX_BYTES);
    expect(maxBodyBytes('/api/trpc/tokens.create')).toBe(API_MAX_BYTES);
    expect(maxBodyBytes('/api/auth/sign-in/email')).toBe(AUTH_MAX_BYTES);
  });
});

const postText = (path: string, type = 'text/plain; charset=utf-8', method = 'POST') =>
  new Request(`http://x${path}`, { method, headers: { 'content-type': type }, body: 'x' });

describe('isTextOutput', () => {
  it('takes a text/plain POST to a run output route', () => {
    expect(isTextOutput(postText('/api/v1/runs/r1/output?tool=pgbench'))).toBe(true);
    expect(isTextOutput(postText('/api/v1/runs/r1/output/', 'Text/Plain'))).toBe(true);
  });
  it('leaves JSON bodies, other methods and other routes alone', () => {
    expect(isTextOutput(postText('/api/v1/runs/r1/output', 'application/json'))).toBe(false);
    expect(isTextOutput(postText('/api/v1/runs/r1/finish'))).toBe(false);
    expect(isTextOutput(postText('/api/v1/runs/r1/output', 'text/plain', 'PUT'))).toBe(false);
  });
});

describe('isBulkJson', () => {
  it('takes a JSON POST to the routes whose body carries an output', () => {
    for (const path of ['/api/v1/runs', '/api/v1/runs/r1/output', '/api/v1/agent/jobs/j1/output/'])
      expect(isBulkJson(postText(path, 'application/json; charset=utf-8')), path).toBe(true);
  });
  it('leaves text/plain, other methods and other routes to the other paths', () => {
    expect(isBulkJson(postText('/api/v1/runs/r1/output'))).toBe(false);
    expect(isBulkJson(postText('/api/v1/runs/r1/output', 'application/json', 'PUT'))).toBe(false);
    expect(isBulkJson(postText('/api/v1/runs/r1/finish', 'application/json'))).toBe(false);
  });
});

describe('readBulkJson', () => {
  const post = (body: string, path = '/api/v1/runs/r1/output') =>
    new Request(`http://x${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const status = async (r: unknown) => (r instanceof Response ? [r.status, (await r.json()).code] : r);

  it('answers as guardJsonRequest and the REST handler did: 413, 400 too deep, PARSE_ERROR, the value', async () => {
    const big = post('x'.repeat(API_MAX_BYTES + 1), '/api/v1/runs');
    expect(await status(await readBulkJson(big, inThreadParser))).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const deep = (await readBulkJson(post(`{"params":${nested(65)}}`), inThreadParser)) as Response;
    expect(deep.status).toBe(400);
    expect((await deep.json()).message).toBe('body: JSON nested deeper than 64 levels');
    const bad = await readBulkJson(post('{"output":'), inThreadParser);
    expect(bad).toMatchObject({ ok: false, cause: expect.any(SyntaxError) });
    expect(await readBulkJson(post('{"output":"x","tool":"hey"}'), inThreadParser)).toEqual({
      ok: true,
      data: { output: 'x', tool: 'hey' },
    });
  });

  it('answers 413 for more than API_MAX_BYTES of JSON besides output', async () => {
    const output = 'x'.repeat(2 * API_MAX_BYTES);
    expect(await readBulkJson(post(JSON.stringify({ output })), inThreadParser)).toEqual({
      ok: true,
      data: { output },
    });
    const junk = await readBulkJson(post(JSON.stringify({ output: 'x', junk: output })), inThreadParser);
    expect(await status(junk)).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  it('answers 422 past the parse budget and 503 when the worker is down', async () => {
    const failing = (err: Error) => ({ parseJson: () => Promise.reject(err) });
    const late = await readBulkJson(post('{}'), failing(new ParseTimeout(5000)));
    expect(await status(late)).toEqual([422, 'UNPROCESSABLE_CONTENT']);
    const down = await readBulkJson(
      post('{}'),
      failing(new ParseWorkerError('parse worker exited (code 1)')),
    );
    expect(await status(down)).toEqual([503, 'SERVICE_UNAVAILABLE']);
  });
});
