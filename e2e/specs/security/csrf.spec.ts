import { expect, test } from '@playwright/test';
import { PORT } from '../../playwright.config';
import { adminLogin, signIn } from '../../fixtures/auth';

test('a cross-origin form POST to a form action is refused with 403', async ({ request }) => {
  const { email, password } = adminLogin();
  const res = await request.post('/login', {
    form: { email, password },
    headers: { origin: 'https://evil.example', accept: 'text/html' },
    maxRedirects: 0,
  });
  expect(res.status()).toBe(403);
  expect(await res.text()).toMatch(/Cross-site POST form submissions are forbidden/);
  expect(res.headers()['set-cookie'] ?? '').not.toContain('session_token');
});

test('a same-origin form POST still signs in (browser and plain client)', async ({ page, request }) => {
  await signIn(page);
  const { email, password } = adminLogin();
  const res = await request.post('/login', {
    form: { email, password },
    headers: { origin: `http://127.0.0.1:${PORT}`, accept: 'text/html' },
    maxRedirects: 0,
  });
  expect(res.status()).toBe(303);
});
