import { describe, expect, it } from 'vitest';
import { createAuth } from './auth';

/** Only the options are inspected; no query runs. */
const fakeDb = { _runtimeDataModel: { models: {}, enums: {}, types: {} } } as never;
const opts = { secret: 's'.repeat(32), baseURL: 'https://cs.example.com' };

describe('better-auth trusted origins', () => {
  it('trusts only the configured origin unless the server runs locally', () => {
    const prod = createAuth(fakeDb, opts);
    expect(prod.options.trustedOrigins).toEqual(['https://cs.example.com']);
    const local = createAuth(fakeDb, { ...opts, localOrigins: true });
    expect(local.options.trustedOrigins).toEqual(
      expect.arrayContaining(['http://127.0.0.1:*', 'http://localhost:*']),
    );
  });

  it('keys its limiter by the client address header the web runtime sets', () => {
    const auth = createAuth(fakeDb, { ...opts, clientIpHeader: 'x-clusterscope-client-ip' });
    expect(auth.options.advanced?.ipAddress?.ipAddressHeaders).toEqual(['x-clusterscope-client-ip']);
  });
});
