import { describe, expect, it } from 'vitest';
import { toUserCaller } from './orgs';

describe('toUserCaller', () => {
  const mine = [
    { id: 'o1', slug: 'acme', role: 'admin' },
    { id: 'o2', slug: 'beta', role: 'no-such-role' },
  ];

  it('resolves the org of the slug among the user’s memberships, with its role', () => {
    expect(toUserCaller('u1', 'acme', mine)).toEqual({
      kind: 'user',
      userId: 'u1',
      orgId: 'o1',
      orgSlug: 'acme',
      role: 'admin',
    });
  });

  it('reads an unknown role as viewer, the least one', () => {
    expect(toUserCaller('u1', 'beta', mine)).toMatchObject({ orgId: 'o2', role: 'viewer' });
  });

  it('answers 404 (not 403) for an org the user is not a member of, so slugs do not leak', () => {
    expect(() => toUserCaller('u1', 'other', mine)).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', message: expect.stringContaining("'other'") }),
    );
  });
});
