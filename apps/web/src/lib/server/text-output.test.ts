import { describe, expect, it } from 'vitest';
import { textOutputAsJson } from './text-output';

const post = (path: string, body: string | Uint8Array<ArrayBuffer>, type = 'text/plain; charset=utf-8') =>
  new Request(`http://x${path}`, { method: 'POST', headers: { 'content-type': type }, body });

describe('textOutputAsJson', () => {
  it('wraps a text/plain body for the output route, tool from the query', async () => {
    const r = await textOutputAsJson(post('/api/v1/runs/r1/output?tool=pgbench', 'tps = 1 {[\n'), 1000);
    expect(r).toBeInstanceOf(Request);
    const req = r as Request;
    expect(req.headers.get('content-type')).toBe('application/json');
    expect(await req.json()).toEqual({ output: 'tps = 1 {[\n', tool: 'pgbench' });
  });
  it('leaves JSON bodies and other routes alone', async () => {
    const json = post('/api/v1/runs/r1/output', '{"output":"x"}', 'application/json');
    expect(await textOutputAsJson(json, 1000)).toBe(json);
    const other = post('/api/v1/runs/r1/finish', 'x');
    expect(await textOutputAsJson(other, 1000)).toBe(other);
  });
  it('answers 413 above the limit and 400 for bytes that are not UTF-8', async () => {
    expect(
      ((await textOutputAsJson(post('/api/v1/runs/r1/output', 'x'.repeat(11)), 10)) as Response).status,
    ).toBe(413);
    const bad = await textOutputAsJson(post('/api/v1/runs/r1/output', new Uint8Array([0xff, 0xfe])), 10);
    expect((bad as Response).status).toBe(400);
    expect(await (bad as Response).text()).toContain('output');
  });
});
