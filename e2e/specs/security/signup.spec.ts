import { expect, test } from '@playwright/test';
import { postAuth } from '../../fixtures/auth';

/**
 * Sign-up rules against the launched embedded demo (SIGNUP defaults to `open` there): a password needs 12+
 * characters on the form and on better-auth's JSON endpoint. `invite` and `closed` modes are covered at the
 * API level in packages/services/src/tenancy/orgs.int.test.ts (the launcher runs one mode per process).
 */
test('the sign-up form rejects a short password with a clear error', async ({ page }) => {
  const stamp = Date.now();
  await page.goto('/signup');
  await page.getByLabel('Name').fill('Short');
  await page.getByLabel('Email').fill(`short-${stamp}@example.com`);
  await page.getByLabel('Password').fill('12345678');
  await page.getByLabel('Organization').fill(`Short ${stamp}`);
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('alert')).toContainText('at least 12 characters');
  await expect(page).toHaveURL(/\/signup/);
  // No account was created: signing in with that password fails.
  await page.goto('/login');
  await page.getByLabel('Email').fill(`short-${stamp}@example.com`);
  await page.getByLabel('Password').fill('12345678');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toBeVisible({ timeout: 20_000 });
});

test("better-auth's sign-up endpoint rejects passwords under 12 characters and accepts 12", async ({
  request,
  baseURL,
}) => {
  const stamp = Date.now();
  const signUp = (email: string, password: string) =>
    postAuth(request, '/api/auth/sign-up/email', {
      headers: { origin: baseURL! },
      data: { name: 'x', email, password },
    });
  const short = await signUp(`short-json-${stamp}@example.com`, '12345678');
  expect(short.status()).toBe(400);
  expect(await short.text()).toMatch(/too short/i);
  expect((await signUp(`eleven-${stamp}@example.com`, '12345678901')).status()).toBe(400);
  expect((await signUp(`twelve-${stamp}@example.com`, 'a-long-pass1')).status()).toBe(200);
});
