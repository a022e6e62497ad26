import { expect, test } from '@playwright/test';
import { signInPatiently, signUpOther } from '../../fixtures/auth';

test('signed out, dashboard pages and the live stream need a session', async ({ page, request }) => {
  await page.goto('/demo/clusters');
  await expect(page).toHaveURL(/\/login\?next=%2Fdemo%2Fclusters/);
  await page.goto('/demo/oncall');
  await expect(page).toHaveURL(/\/login\?next=%2Fdemo%2Foncall/);
  expect((await request.get('/api/live?org=demo')).status()).toBe(401);
});

test('a user of another organization gets 404 for the demo org pages', async ({ page, browser }) => {
  // Find the demo cluster id as the admin.
  await signInPatiently(page);
  await page.goto('/demo/clusters');
  const href = await page
    .locator('tr[data-cluster="demo-cockroach"]')
    .getByRole('link', { name: 'demo-cockroach' })
    .getAttribute('href');
  expect(href).toMatch(/^\/demo\/clusters\/.+/);

  const ctx = await browser.newContext();
  const other = await ctx.newPage();
  await signUpOther(other);
  const slug = new URL(other.url()).pathname.split('/')[1];
  expect(slug).not.toBe('demo');
  for (const path of ['/demo/clusters', href!, `${href}/nodes/1`, '/demo/oncall']) {
    const res = await other.goto(path);
    expect(res?.status(), path).toBe(404);
  }
  expect((await other.request.get('/api/live?org=demo')).status()).toBe(404);
  // Their own org's cluster id space does not include the demo cluster either.
  const res = await other.goto(href!.replace('/demo/', `/${slug}/`));
  expect(res?.status()).toBe(404);
  // And their own clusters page shows the empty state with install instructions.
  await other.goto(`/${slug}/clusters`);
  await expect(other.getByTestId('clusters-empty')).toContainText('ingest');
  await expect(other.getByTestId('clusters-empty').getByRole('link', { name: /API token/ })).toBeVisible();
  await ctx.close();
});
