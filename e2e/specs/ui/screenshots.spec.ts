import { expect, test } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';

/** Screenshots for review, saved as test artifacts (test-results/…/*.png and attached to the report). */
test('screenshots: on-call (phone), cluster page, runs list, run page', async ({ page }, info) => {
  test.setTimeout(120_000);
  const shoot = async (name: string) => {
    const body = await page.screenshot({ fullPage: true, path: info.outputPath(`${name}.png`) });
    await info.attach(name, { body, contentType: 'image/png' });
  };
  await signInPatiently(page);

  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto('/demo/oncall');
  await expect(page.getByTestId('oncall-summary')).toBeVisible();
  await shoot('oncall-phone');
  await page.getByRole('button', { name: /On-call/ }).click();
  await shoot('oncall-phone-menu');

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/demo/clusters');
  await page
    .locator('tr[data-cluster="demo-cockroach"]')
    .getByRole('link', { name: 'demo-cockroach' })
    .click();
  await expect(page.locator('table.nodes tbody tr').first()).toBeVisible();
  await expect(page.locator('canvas, svg').first()).toBeVisible();
  await shoot('cluster');

  await page.goto('/demo/runs');
  const runs = page.getByRole('table', { name: 'Runs' });
  await expect(runs).toBeVisible();
  await shoot('runs');
  await runs.locator('tbody tr a.mono').first().click();
  await expect(page).toHaveURL(/\/demo\/runs\/[^/?]+/);
  await page.waitForLoadState('networkidle').catch(() => undefined);
  await shoot('run');

  await page.goto('/demo/clusters/no-such-cluster');
  await expect(page.getByTestId('error-page')).toBeVisible();
  await shoot('not-found');
});
