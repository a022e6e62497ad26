import { expect, test } from '@playwright/test';
import { createCluster, freshOrg, ingestNodes, seriousViolations } from '../../fixtures/ux';

const HOUR = 3_600_000;

// Desktop and phone: a fresh organization with one cluster of each kind, named so that alphabetical order
// would be the wrong order.
test('on-call puts the problem first, collapses quiet clusters, and fits every tile', async ({
  page,
}, info) => {
  test.setTimeout(120_000);
  const { slug, admin } = await freshOrg(page);
  const r = page.request;
  for (const n of ['a-never', 'b-silent', 'c-ok', 'd-underrepl', 'e-stale-node', 'z-critical'])
    await createCluster(r, admin, n);
  await ingestNodes(r, admin, 'b-silent', [{ id: 1, liveness: 'LIVE', ago: 2 * HOUR }]);
  await ingestNodes(r, admin, 'c-ok', [
    { id: 1, liveness: 'LIVE' },
    { id: 2, liveness: 'LIVE' },
    { id: 3, liveness: 'DECOMMISSIONED' },
  ]);
  await ingestNodes(r, admin, 'd-underrepl', [{ id: 1, liveness: 'LIVE', under: 3 }]);
  await ingestNodes(r, admin, 'e-stale-node', [
    { id: 1, liveness: 'LIVE' },
    { id: 2, liveness: 'LIVE', ago: 10 * 60_000 },
  ]);
  // The case: a node UNAVAILABLE and 40 under-replicated ranges.
  await ingestNodes(r, admin, 'z-critical', [
    { id: 1, liveness: 'LIVE', under: 40 },
    { id: 2, liveness: 'UNAVAILABLE' },
  ]);

  await page.goto(`/${slug}/oncall`);
  const sections = page.locator('section.cluster');
  // b-silent's node stopped reporting: its firing "No data" alert makes it a warning, not a quiet cluster.
  // The evaluator fires that alert on one of its next cycles: wait for it rather than race it.
  await expect
    .poll(
      async () => {
        await page.reload();
        return sections.count();
      },
      { timeout: 60_000, intervals: [2_000] },
    )
    .toBe(5);
  const labels = await sections.evaluateAll((s) => s.map((e) => e.getAttribute('aria-label')));
  expect(labels[0]).toBe('z-critical');
  expect(labels[4]).toBe('c-ok');
  expect(labels.slice(1, 4).sort()).toEqual(['b-silent', 'd-underrepl', 'e-stale-node']);
  expect(await sections.evaluateAll((s) => s.map((e) => e.getAttribute('data-severity')))).toEqual([
    'critical',
    'warning',
    'warning',
    'warning',
    'ok',
  ]);
  await expect(sections.first().getByTestId('oncall-status')).toContainText('1 unavailable');
  // Quiet clusters: one compact line at the bottom, not alarm cards.
  const quiet = page.getByTestId('oncall-quiet');
  await expect(quiet).toContainText('1 quiet');
  await expect(quiet.locator('[data-cluster="a-never"]')).toBeVisible();
  await expect(quiet).toContainText('never reported');
  // The summary counts clusters per severity and nodes per state, in the badge words.
  const summary = page.getByTestId('oncall-summary');
  await expect(summary).toContainText('6 clusters');
  for (const t of [
    '1 critical',
    '3 warning',
    '1 ok',
    '1 quiet',
    '9 nodes',
    '1 unavailable',
    '1 decommissioned',
  ])
    await expect(summary).toContainText(t);
  await expect(summary.locator('[data-state="STALE"]')).toHaveText('2 stale');

  // No tile text overflows (DECOMMISSIONED included), and the page never scrolls sideways.
  const tiles = page.locator('.tiles li');
  await expect(page.locator('.tiles li[data-state="DECOMMISSIONED"]')).toBeVisible();
  const overflowing = await tiles.evaluateAll(
    (els) =>
      els.filter((e) =>
        [e, ...Array.from(e.querySelectorAll('span'))].some((x) => x.scrollWidth > x.clientWidth + 1),
      ).length,
  );
  expect(overflowing).toBe(0);
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
  ).toBeLessThanOrEqual(0);

  // Clusters list: the same state words (no "suspect"), and the worst status in the bad colour.
  await page.goto(`/${slug}/clusters`);
  await expect(page.getByText(/suspect/i)).toHaveCount(0);
  const crit = page.locator('tr[data-cluster="z-critical"]');
  await expect(crit.getByTestId('other-states').locator('[data-state="UNAVAILABLE"]')).toHaveText(
    '1 UNAVAILABLE',
  );
  await expect(crit.getByTestId('status')).toHaveClass(/\bbad\b/);

  await page.goto(`/${slug}/oncall`);
  await page.screenshot({ fullPage: true, path: info.outputPath('oncall-mixed.png') });
  // Contrast and a11y on a page with every tone, in both themes.
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
    expect(await seriousViolations(page), `on-call, ${theme}`).toEqual([]);
  }
});
