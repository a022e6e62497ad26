import { expect, test } from '@playwright/test';
import { adminLogin, signIn, signUpOther } from '../../fixtures/auth';

test('signed out, org pages redirect to login and back after sign-in', async ({ page }) => {
  await page.goto('/demo/settings/members');
  await expect(page).toHaveURL(/\/login\?next=%2Fdemo%2Fsettings%2Fmembers/);
  const login = adminLogin();
  await page.getByLabel('Email').fill(login.email);
  await page.getByLabel('Password').fill(login.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/demo\/settings\/members$/);
  await expect(page.getByRole('cell', { name: 'admin@clusterscope.local' })).toBeVisible();
});

test('wrong password shows an error', async ({ page }) => {
  await signIn(page).catch(() => undefined);
  await page.context().clearCookies();
  await page.goto('/login');
  await page.getByLabel('Email').fill('admin@clusterscope.local');
  await page.getByLabel('Password').fill('wrong-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(page).toHaveURL(/\/login/);
});

test('API token: created in the UI, shown once, works, revoked', async ({ page, request }) => {
  await signIn(page);
  await page.goto('/demo/settings/tokens');
  const name = `ui-${Date.now()}`;
  await page.getByLabel('Name').fill(name);
  await page.getByRole('checkbox', { name: 'read' }).check();
  await page.getByRole('button', { name: 'Create token' }).click();
  const token = (await page.getByTestId('new-token').textContent())!.trim();
  expect(token).toMatch(/^cs_/);
  expect(
    (await request.get('/api/v1/clusters', { headers: { authorization: `Bearer ${token}` } })).status(),
  ).toBe(200);

  await page.getByRole('button', { name: 'Done' }).click();
  await page.reload();
  await expect(page.getByTestId('new-token')).toHaveCount(0);
  await expect(page.getByText(token)).toHaveCount(0);

  page.once('dialog', (d) => d.accept());
  await page
    .getByRole('row', { name: new RegExp(name) })
    .getByRole('button', { name: 'Revoke' })
    .click();
  // Revoked tokens move out of the active list into a collapsed section.
  await expect(page.getByRole('table', { name: 'Active tokens' }).getByText(name)).toHaveCount(0);
  // Opened from the keyboard: on the Pixel 7 profile a pointer click on the summary at the page's bottom edge is
  // reported as intercepted by the table above it (not root-caused; the page renders correctly).
  const ended = page.locator('details.ended > summary');
  await ended.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('row', { name: new RegExp(name) }).getByText('revoked')).toBeVisible();
  expect(
    (await request.get('/api/v1/clusters', { headers: { authorization: `Bearer ${token}` } })).status(),
  ).toBe(401);
});

test('another organization: its user gets 404 on the demo org, and can switch between own orgs', async ({
  page,
}) => {
  const stamp = await signUpOther(page);
  const res = await page.goto('/demo/clusters');
  expect(res?.status()).toBe(404);
  await page.goto('/signup');
  await page.getByLabel('Organization').fill(`Second ${stamp}`);
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page).toHaveURL(new RegExp(`/second-${stamp}/clusters$`));
  await page.getByLabel('Organization', { exact: true }).selectOption(`other-${stamp}`);
  await expect(page).toHaveURL(new RegExp(`/other-${stamp}/clusters$`));
});

test('sign out ends the session', async ({ page }) => {
  await signIn(page);
  await page.goto('/demo/settings/members');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto('/demo/settings/members');
  await expect(page).toHaveURL(/\/login/);
});
