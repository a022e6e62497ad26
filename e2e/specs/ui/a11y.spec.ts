import { expect, test } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';
import { seriousViolations, useTheme } from '../../fixtures/ux';

for (const theme of ['light', 'dark'] as const) {
  test(`axe-core: no serious a11y or contrast violations on on-call, clusters and a cluster (${theme})`, async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await useTheme(page, theme);
    await signInPatiently(page);
    for (const path of ['/demo/oncall', '/demo/clusters']) {
      await page.goto(path);
      await expect(page.locator('main h1')).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
      expect(await seriousViolations(page), `${path} (${theme})`).toEqual([]);
    }
    await page
      .locator('tr[data-cluster="demo-cockroach"]')
      .getByRole('link', { name: 'demo-cockroach' })
      .click();
    await expect(page.getByTestId('cluster-status')).toBeVisible();
    await expect(page.locator('table.nodes tbody tr').first()).toBeVisible();
    expect(await seriousViolations(page), `cluster page (${theme})`).toEqual([]);
  });
}
