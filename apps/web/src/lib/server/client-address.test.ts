import { describe, expect, it } from 'vitest';
import { resolveClientAddress } from './client-address';

describe('resolveClientAddress', () => {
  it('ignores X-Forwarded-For unless TRUST_PROXY names the hops', () => {
    expect(resolveClientAddress('10.0.0.5', '1.2.3.4', 0)).toBe('10.0.0.5');
  });
  it('takes the entry the trusted proxy appended, not what the client sent', () => {
    expect(resolveClientAddress('10.0.0.1', 'spoofed, 203.0.113.9', 1)).toBe('203.0.113.9');
    expect(resolveClientAddress('10.0.0.1', 'spoofed, 203.0.113.9, 10.0.0.2', 2)).toBe('203.0.113.9');
  });
  it('falls back to the socket for junk or a missing header', () => {
    expect(resolveClientAddress('10.0.0.1', 'not-an-ip', 1)).toBe('10.0.0.1');
    expect(resolveClientAddress('10.0.0.1', null, 1)).toBe('10.0.0.1');
  });
  it('unwraps IPv4-mapped IPv6 peers', () => {
    expect(resolveClientAddress('::ffff:127.0.0.1', null, 0)).toBe('127.0.0.1');
  });
});
