import { describe, expect, it } from 'vitest';
import { isCrossSiteForm } from './csrf';

const ORIGIN = 'http://app.test';
const req = (path: string, headers: Record<string, string>, method = 'POST') => {
  const url = new URL(path, ORIGIN);
  return [new Request(url, { method, headers, body: method === 'GET' ? undefined : 'x' }), url] as const;
};

describe('isCrossSiteForm', () => {
  it('refuses cross-site and origin-less form posts, as SvelteKit does', () => {
    for (const type of [
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'text/plain; charset=utf-8',
    ])
      expect(
        isCrossSiteForm(...req('/login', { 'content-type': type, origin: 'https://evil.example' })),
      ).toBe(true);
    expect(isCrossSiteForm(...req('/login', { 'content-type': 'text/plain' }))).toBe(true);
  });
  it('lets same-origin forms, JSON and reads through', () => {
    expect(isCrossSiteForm(...req('/login', { 'content-type': 'text/plain', origin: ORIGIN }))).toBe(false);
    expect(isCrossSiteForm(...req('/api/v1/runs', { 'content-type': 'application/json' }))).toBe(false);
    expect(isCrossSiteForm(...req('/x', { 'content-type': 'text/plain' }, 'GET'))).toBe(false);
  });
  it('lets only a bearer-token text/plain POST to a run output through', () => {
    const out = '/api/v1/runs/r1/output';
    const ci = { 'content-type': 'text/plain', authorization: 'Bearer cs_x' };
    expect(isCrossSiteForm(...req(out, ci))).toBe(false);
    expect(isCrossSiteForm(...req(out, { 'content-type': 'text/plain' }))).toBe(true);
    expect(isCrossSiteForm(...req(out, { ...ci, 'content-type': 'multipart/form-data' }))).toBe(true);
    expect(isCrossSiteForm(...req('/api/v1/runs/r1/finish', ci))).toBe(true);
    expect(isCrossSiteForm(...req('/login', ci))).toBe(true);
  });
});
