import { expect, test } from '@playwright/test';
import { freshOrg } from '../../fixtures/ux';

// Phone project only (Pixel 7).
test('phones get a compact menu instead of a nav that scrolls sideways', async ({ page }) => {
  const { slug } = await freshOrg(page);
  await page.goto(`/${slug}/oncall`);
  const menu = page.getByRole('button', { name: /On-call/ });
  await expect(menu).toBeVisible();
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav).toBeHidden();
  await menu.click();
  for (const name of ['Clusters', 'On-call', 'Runs', 'Workloads', 'Settings', 'API docs']) {
    const link = nav.getByRole('link', { name, exact: true });
    await expect(link).toBeVisible();
    // Every entry is fully on screen (nothing cut off like "Settin…").
    const box = (await link.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width);
  }
  await nav.getByRole('link', { name: 'Runs', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/${slug}/runs`));
  await expect(page.getByRole('button', { name: /Runs/ })).toHaveAttribute('aria-expanded', 'false');
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
  ).toBeLessThanOrEqual(0);
});
