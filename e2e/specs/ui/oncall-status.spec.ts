import { expect, test } from '@playwright/test';
import { makeAlertingCluster, ORG, rpc } from '../../fixtures/alerting';
import { signInPatiently } from '../../fixtures/auth';
import { ingestNodes } from '../../fixtures/ux';

/** Where to write the before/after screenshots (not committed); unset: the test output dir. */
const SHOTS = process.env.SHOTS_DIR;
const TAG = process.env.SHOTS_TAG ?? 'after';

test('a firing warning on a cluster whose nodes are all LIVE: on-call, header and nav do not read green', async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  const shot = (name: string) =>
    SHOTS ? `${SHOTS}/oncall-${name}-${TAG}.png` : testInfo.outputPath(`${name}.png`);
  await signInPatiently(page);
  const c = await makeAlertingCluster(page.request, 'warn-live');
  const live = () =>
    ingestNodes(
      page.request,
      c.token,
      c.id,
      [1, 2, 3].map((id) => ({ id, liveness: 'LIVE' })),
    );
  await live();
  await rpc(page.request, 'alerting.createRule', {
    clusterId: c.id,
    name: 'Replicas above 5',
    series: 'node.replicas',
    comparison: 'gt',
    threshold: 5,
    severity: 'warning',
    summary: 'node {{node}} holds {{value}} replicas',
  });
  await expect
    .poll(
      async () =>
        (
          await rpc<{ state: string }[]>(
            page.request,
            'alerting.list',
            { clusterId: c.id, state: 'firing' },
            'GET',
          )
        ).length,
      { timeout: 45_000, intervals: [500, 1000] },
    )
    .toBe(3);
  await live(); // fresh samples: every node reads LIVE, not STALE

  // REST: the cluster's health names the alert.
  const health = await page.request.get('/api/v1/health/clusters', { headers: { 'x-org': ORG } });
  const mine = (
    (await health.json()) as { cluster: { id: string }; status: { level: string; headline: string } }[]
  ).find((h) => h.cluster.id === c.id);
  expect.soft(mine?.status.level).toBe('warn');
  expect.soft(mine?.status.headline).toMatch(/3 alerts firing · worst: node \d holds 10 replicas/);

  await page.setViewportSize({ width: 360, height: 780 });
  await live();
  await page.goto(`/${ORG}/oncall`);
  const section = page.getByRole('region', { name: c.name });
  const status = section.getByTestId('oncall-status');
  await expect(status).toBeVisible();
  await expect.soft(status).not.toHaveClass(/\bok\b/);
  await expect.soft(status).toHaveClass(/\bwarn\b/);
  await expect.soft(status).toContainText('3 alerts firing');
  await expect.soft(status).toContainText('All 3 live');
  await expect.soft(section).toHaveAttribute('data-severity', 'warning');
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: shot('360') });
  // The alerts page on the same phone: the firing alerts with their Ack.
  await page.goto(`/${ORG}/alerts?cluster=${c.id}`);
  await expect.soft(page.getByText('Replicas above 5').first()).toBeVisible();
  await page.screenshot({ path: shot('alerts-360'), fullPage: true });

  await page.setViewportSize({ width: 1280, height: 800 });
  await live();
  await page.goto(`/${ORG}/clusters/${c.id}`);
  const header = page.getByTestId('cluster-status');
  await expect.soft(header).toHaveClass(/\bwarn\b/);
  await expect.soft(header).toContainText('3 alerts firing');
  await page.screenshot({ path: shot('cluster-header') });
  // The navigation's alert count (every unsilenced firing alert of the org: at least these 3).
  const badge = page.getByTestId('nav-alert-count');
  await expect.soft(badge).toBeVisible();
  expect.soft(Number(await badge.textContent({ timeout: 1000 }).catch(() => '0'))).toBeGreaterThanOrEqual(3);
});
