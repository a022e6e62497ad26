import { expect, test } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';
import { openDemoCluster } from '../../fixtures/demo-org';

// Desktop and mobile (Pixel 7): login → clusters → demo cluster → node.
test('clusters → demo cluster → node, with state badges, charts and the range in the URL', async ({
  page,
}) => {
  await signInPatiently(page);
  await page.goto('/demo/clusters');
  const row = page.locator('tr[data-cluster="demo-cockroach"]');
  await expect(row).toBeVisible();
  await expect(row.getByText('Demo', { exact: true })).toBeVisible();
  await expect(row.getByRole('cell', { name: /^\d+\/5$/ })).toBeVisible();

  await row.getByRole('link', { name: 'demo-cockroach' }).click();
  await expect(page).toHaveURL(/\/demo\/clusters\/[^/?]+$/);
  await expect(page.getByRole('heading', { name: /demo-cockroach/ })).toBeVisible();
  await expect(page.getByTestId('cluster-status')).toBeVisible();
  const nodes = page.locator('table.nodes tbody tr');
  await expect(nodes).toHaveCount(5);
  for (const tr of await nodes.all()) {
    await expect(tr.locator('[data-state]').first()).toHaveText(
      /^(LIVE|DRAINING|DECOMMISSIONING|UNAVAILABLE|DEAD|STALE)$/,
    );
    await expect(tr.getByTestId('last-heard')).toHaveText(/\d+[smhd] ago/);
  }
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();

  // Charts render (ECharts canvas) and the default 1 h range reads raw samples.
  await expect(
    page.getByRole('region', { name: 'CPU vs limit' }).locator('canvas, svg').first(),
  ).toBeVisible();
  await expect(page.getByTestId('resolution')).toHaveText('raw');

  // 24 h and 30 d switch to rollups; the choice is kept in the URL.
  await page.getByRole('link', { name: '24h', exact: true }).click();
  await expect(page).toHaveURL(/\?range=24h$/);
  await expect(page.getByTestId('resolution')).toHaveText('1m');
  await page.getByRole('link', { name: '30d', exact: true }).click();
  await expect(page).toHaveURL(/\?range=30d$/);
  await expect(page.getByTestId('resolution')).toHaveText('1h');
  await page.reload();
  await expect(page.getByTestId('resolution')).toHaveText('1h');

  // The 24 h backfill contains node 3's drain cycle: the events timeline shows it.
  await page.getByRole('link', { name: '24h', exact: true }).click();
  await expect(page).toHaveURL(/\?range=24h$/);
  await expect(page.getByTestId('resolution')).toHaveText('1m');
  const events = page.getByTestId('events');
  await expect(events.locator('[data-state="DRAINING"]').first()).toBeVisible();
  await expect(events.locator('[data-state="DEAD"]').first()).toBeVisible();

  await page.locator('table.nodes tr[data-node="3"]').getByRole('link', { name: 'n3' }).click();
  await expect(page).toHaveURL(/\/nodes\/3\?range=24h$/);
  await expect(page.getByRole('heading', { name: /Node 3/ })).toBeVisible();
  await expect(page.getByTestId('state-history').locator('tbody tr').first()).toBeVisible();
  await expect(page.getByTestId('state-history').locator('[data-state="DRAINING"]').first()).toBeVisible();
  await expect(page.getByTestId('raw-samples').locator('tbody tr').first()).toBeVisible();
});

test('a bad range in the URL falls back to the default and says why', async ({ page }) => {
  await signInPatiently(page);
  await page.goto(`${await openDemoCluster(page)}?range=2y`);
  await expect(page.getByRole('alert')).toContainText('range: unknown value');
  await expect(page.getByTestId('resolution')).toHaveText('raw');
});
