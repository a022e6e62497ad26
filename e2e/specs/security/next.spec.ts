import { expect, test } from '@playwright/test';
import { PORT } from '../../playwright.config';
import { adminLogin } from '../../fixtures/auth';

const ORIGIN = `http://127.0.0.1:${PORT}`;
const BYPASSES = [
  '/%5Cevil.example/phish',
  '/%09/evil.example',
  '/%0a/evil.example',
  '//evil.example',
  '/\\evil.example',
  'https://evil.example',
  '/%2F%2Fevil.example',
  '%2F%2Fevil.example',
  '/%252F%252Fevil.example',
  'javascript:alert(1)',
];

/** Each value sent as written (as in the report: `?next=/%5Cevil.example/phish`) and encoded once more. */
const QUERIES = BYPASSES.flatMap((n) => [n, encodeURIComponent(n)]);

/** Where a redirect to `location` lands in a browser. */
const landsOn = (location: string) => new URL(location, `${ORIGIN}/login`);

test('?next= after sign-in (form action) and for a signed-in visit only goes to same-origin paths', async ({
  request,
}) => {
  const { email, password } = adminLogin();
  for (const next of QUERIES) {
    const res = await request.post(`/login?next=${next}`, {
      form: { email, password },
      headers: { origin: ORIGIN, accept: 'text/html' },
      maxRedirects: 0,
    });
    expect(res.status(), next).toBe(303);
    const url = landsOn(res.headers().location);
    expect(url.origin, `${next} -> ${res.headers().location}`).toBe(ORIGIN);
    expect(res.headers().location, next).toBe('/');
  }
  // Signed in now (the request context keeps the cookie): the load function redirects the same way.
  for (const next of QUERIES) {
    const res = await request.get(`/login?next=${next}`, { maxRedirects: 0 });
    expect(res.status(), next).toBe(303);
    expect(landsOn(res.headers().location).origin, `${next} -> ${res.headers().location}`).toBe(ORIGIN);
  }
  const ok = await request.get(`/login?next=${encodeURIComponent('/demo/runs?x=1')}`, { maxRedirects: 0 });
  expect(ok.headers().location).toBe('/demo/runs?x=1');
});

test('in Chromium, signing in with a hostile next stays on this origin', async ({ page }) => {
  const { email, password } = adminLogin();
  await page.goto('/login?next=/%5Cevil.example/phish');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/\/login/, { timeout: 20_000 });
  expect(new URL(page.url()).origin).toBe(ORIGIN);
});
