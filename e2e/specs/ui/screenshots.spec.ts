import path from 'node:path';
import { devices, expect, test, type Page } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';

/** The README's images; written only with SCREENSHOTS=1 so that ordinary runs leave the tree clean. */
const README_IMAGES = path.resolve(import.meta.dirname, '../../../docs/images');
const forReadme = process.env.SCREENSHOTS === '1';

/** Screenshots for review, saved as test artifacts (test-results/…/*.png and attached to the report). */
test('screenshots: on-call (phone), cluster page, runs list, run page', async ({ page, browser }, info) => {
  test.setTimeout(300_000);
  const shoot = async (p: Page, name: string, readme?: string) => {
    const body = await p.screenshot({ fullPage: !readme, path: info.outputPath(`${name}.png`) });
    await info.attach(name, { body, contentType: 'image/png' });
    if (readme && forReadme) await p.screenshot({ path: path.join(README_IMAGES, readme) });
  };
  await signInPatiently(page);

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/demo/clusters');
  await page
    .locator('tr[data-cluster="demo-cockroach"]')
    .getByRole('link', { name: 'demo-cockroach' })
    .click();
  await expect(page.locator('table.nodes tbody tr').first()).toBeVisible();
  // The demo cluster's first live samples arrive a few seconds after start: picture it reporting, not stale.
  await expect(page.locator('table.nodes tbody tr', { hasText: 'LIVE' }).first()).toBeVisible({
    timeout: 150_000,
  });
  await expect(page.locator('canvas, svg').first()).toBeVisible();
  await page.waitForLoadState('networkidle').catch(() => undefined);
  await shoot(page, 'cluster', 'cluster.png');

  // The on-call page as a phone shows it (Pixel 7: viewport, device scale, touch), signed in as the same user.
  const phone = await browser.newContext({
    ...devices['Pixel 7'],
    baseURL: info.project.use.baseURL,
    storageState: await page.context().storageState(),
  });
  const onPhone = await phone.newPage();
  await onPhone.goto('/demo/oncall');
  await expect(onPhone.getByTestId('oncall-summary')).toBeVisible();
  await onPhone.waitForLoadState('networkidle').catch(() => undefined);
  await shoot(onPhone, 'oncall-phone', 'oncall.png');
  await phone.close();

  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto('/demo/oncall');
  await expect(page.getByTestId('oncall-summary')).toBeVisible();
  await page.getByRole('button', { name: /On-call/ }).click();
  await shoot(page, 'oncall-phone-menu');

  await page.goto('/demo/runs');
  await expect(page.getByRole('heading', { name: 'Benchmark runs' })).toBeVisible();
  const runs = page.getByRole('table', { name: 'Runs' });
  await shoot(page, 'runs');
  // A fresh demo has no runs until a spec or CI posts one; the run page is shot when there is one.
  const first = runs.locator('tbody tr a.mono').first();
  if (await first.isVisible()) {
    await first.click();
    await expect(page).toHaveURL(/\/demo\/runs\/[^/?]+/);
    await page.waitForLoadState('networkidle').catch(() => undefined);
    await shoot(page, 'run');
  }

  await page.goto('/demo/clusters/no-such-cluster');
  await expect(page.getByTestId('error-page')).toBeVisible();
  await shoot(page, 'not-found');
});
