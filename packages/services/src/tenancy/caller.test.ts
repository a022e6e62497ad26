import { describe, expect, it } from 'vitest';
import { assertCan, type TCaller } from './caller';

const token = (
  scopes: ('read' | 'ingest' | 'runs:write' | 'admin')[],
  clusterId: string | null = null,
): TCaller => ({
  kind: 'token',
  tokenId: 't',
  orgId: 'o',
  orgSlug: 'acme',
  scopes,
  clusterId,
});
const refusal = (caller: TCaller, permission: Parameters<typeof assertCan>[1]) => {
  try {
    assertCan(caller, permission);
    return 'allowed';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('a refusal names the scope or role to add', () => {
  it('a read token writing runs is told to use runs:write', () => {
    expect(refusal(token(['read']), { run: ['write'] })).toMatch(/use a token with the 'runs:write' scope/);
  });
  it('an ingest token reading runs is told to add read', () => {
    expect(refusal(token(['ingest']), { run: ['read'] })).toMatch(/'read' scope/);
  });
  it('creating clusters needs admin; a cluster-bound token is told to use an unbound one', () => {
    expect(refusal(token(['runs:write']), { cluster: ['create'] })).toMatch(/'admin' scope/);
    expect(refusal(token(['admin'], 'c1'), { cluster: ['create'] })).toMatch(/not bound to a cluster/);
  });
  it('a viewer is told the least role that may do it', () => {
    const viewer: TCaller = { kind: 'user', userId: 'u', orgId: 'o', orgSlug: 'acme', role: 'viewer' };
    expect(refusal(viewer, { run: ['write'] })).toMatch(/ask an organization admin for the 'member' role/);
    expect(refusal(viewer, { run: ['read'] })).toBe('allowed');
  });
});
