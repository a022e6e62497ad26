import { expect, test } from '@playwright/test';
import { adminLogin, postAuth } from '../../fixtures/auth';

/**
 * Only the better-auth routes the app uses are reachable under /api/auth; the organization plugin's own
 * endpoints would skip the app's rules (slug format, reserved names, owner rules).
 */
test('better-auth organization endpoints are not reachable; slugs like a/b, api and login cannot be made', async ({
  request,
  baseURL,
}) => {
  const signIn = await postAuth(request, '/api/auth/sign-in/email', {
    data: adminLogin(),
    headers: { origin: baseURL! },
  });
  expect(signIn.status()).toBe(200);
  for (const slug of ['a/b', 'api', 'login']) {
    const res = await request.post('/api/auth/organization/create', {
      headers: { origin: baseURL! },
      data: { name: `Probe ${slug}`, slug },
    });
    expect(res.status(), slug).toBe(404);
  }
  const update = await request.post('/api/auth/organization/update', {
    headers: { origin: baseURL! },
    data: { data: { metadata: { x: 1 } }, organizationSlug: 'demo' },
  });
  expect(update.status()).toBe(404);
  const list = await request.get('/api/auth/organization/list');
  expect(list.status()).toBe(404);
  // The routes the app does use still answer.
  expect((await request.get('/api/auth/get-session')).status()).toBe(200);
});
