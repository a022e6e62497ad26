import { expect, test } from '@playwright/test';
import { createTokenVia, signInPatiently } from '../../fixtures/auth';
import { createDemoCluster } from '../../fixtures/demo-org';

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

  const now = Date.now();
  const post = await request.post('/api/v1/ingest', {
    headers: { authorization: `Bearer ${token}` },
    data: {
      batchId: `e2e-live-${now}`,
      cluster: cluster.id,
      samples: [
        {
          kind: 'node_status', ts: now, node_id: 42, address: 'e2e-n42:26257', liveness: 'DRAINING',
          is_live: true, is_available: true, is_draining: true, replicas: 11, replicas_leaders: 1,
          replicas_leaseholders: 1, ranges: 11, ranges_unavailable: 0, ranges_underreplicated: 0,
          live_bytes: 1, key_bytes: 1, value_bytes: 1, intent_bytes: 0, system_bytes: 0, capacity: 10,
          capacity_available: 5, capacity_used: 5, uptime_s: 12,
        }, // prettier-ignore
      ],
    },
  });
  expect(post.status(), await post.text()).toBeLessThan(300);
  const row = page.locator('table.nodes tr[data-node="42"]');
  await expect(row).toBeVisible({ timeout: 2000 });
  await expect(row.locator('[data-state]').first()).toHaveText('DRAINING');
  expect(reloaded).toBe(false);
});
