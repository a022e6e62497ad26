import { describe, expect, it } from 'vitest';
import { safeNext } from './safe-next';

describe('safeNext', () => {
  it.each([
    '/%5Cevil.example/phish',
    '/%09/evil.example',
    '/%0a/evil.example',
    '/%0d/evil.example',
    '/%00/evil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    '//evil',
    '//evil.example/path',
    '/\\evil',
    '\\\\evil',
    '\\/evil',
    'https://evil',
    'http:evil',
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'data:text/html,x',
    '/%2F%2Fevil',
    '%2F%2Fevil',
    '/%2F/evil',
    '/%252F%252Fevil',
    '/%255Cevil',
    '%252F%252Fevil',
    '/%5C%5Cevil',
    '/%E0%A4%A',
    'evil.example',
    '',
    '///evil',
    '/ /evil'.replace(' ', '\u007f'),
  ])('rejects %j', (raw) => {
    expect(safeNext(raw)).toBe('/');
  });

  it.each([
    '/',
    '/demo',
    '/demo/runs?cluster=abc&range=24h',
    '/demo/runs/123#chart',
    '/demo/compare?a=1&b=2',
    '/path%20with%20space',
  ])('keeps same-origin path %j', (raw) => {
    expect(safeNext(raw)).toBe(raw);
  });

  it('uses the fallback for null', () => {
    expect(safeNext(null, '/home')).toBe('/home');
  });
});
