import { expect, test } from '@playwright/test';
import { createTokenVia, signInPatiently } from '../../fixtures/auth';
import { createDemoCluster } from '../../fixtures/demo-org';
import { ingestNodes } from '../../fixtures/ux';

test('a sample posted to /api/v1/ingest appears on the open cluster page without reload', async ({
  page,
  request,
}) => {
  await signInPatiently(page);
  // A fresh cluster of the demo org (page.request shares the signed-in session).
  const name = `live-${Date.now()}`;
  const cluster = await createDemoCluster(page.request, name);
  const token = await createTokenVia(page.request, 'demo', { name, scopes: ['ingest'] });

  await page.goto(`/demo/clusters/${cluster.id}`);
  await expect(page.getByText('No node has reported yet')).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  await expect(page.locator('table.nodes tr[data-node="42"]')).toHaveCount(0);
  let reloaded = false;
  page.on('load', () => (reloaded = true));

  await ingestNodes(request, token, cluster.id, [{ id: 42, liveness: 'DRAINING', draining: true }]);
  const row = page.locator('table.nodes tr[data-node="42"]');
  await expect(row).toBeVisible({ timeout: 2000 });
  await expect(row.locator('[data-state]').first()).toHaveText('DRAINING');
  expect(reloaded).toBe(false);
});
