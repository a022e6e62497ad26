import { describe, expect, it } from 'vitest';
import { isAllowedAuthRoute } from './auth-routes';

describe('better-auth routes passed through', () => {
  it('lets through sign-in, sign-up, sign-out, the session and the mail link', () => {
    expect(isAllowedAuthRoute('POST', '/api/auth/sign-in/email')).toBe(true);
    expect(isAllowedAuthRoute('POST', '/api/auth/sign-up/email')).toBe(true);
    expect(isAllowedAuthRoute('POST', '/api/auth/sign-out')).toBe(true);
    expect(isAllowedAuthRoute('GET', '/api/auth/get-session')).toBe(true);
    expect(isAllowedAuthRoute('GET', '/api/auth/verify-email')).toBe(true);
  });

  it('refuses the organization plugin, other methods and other endpoints', () => {
    for (const p of ['create', 'update', 'list', 'set-active', 'invite-member', 'delete'])
      expect(isAllowedAuthRoute('POST', `/api/auth/organization/${p}`)).toBe(false);
    expect(isAllowedAuthRoute('GET', '/api/auth/sign-in/email')).toBe(false);
    expect(isAllowedAuthRoute('POST', '/api/auth/forget-password')).toBe(false);
    expect(isAllowedAuthRoute('POST', '/api/auth/sign-in/email/../../organization/create')).toBe(false);
  });
});
