import { expect, test } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';
import { cliToken } from '../../fixtures/launch';
import { bearer, seriousViolations, uid } from '../../fixtures/ux';

test('bad ids and an empty compare show the app-styled error page with the nav and a way on', async ({
  page,
}) => {
  await signInPatiently(page);
  const res = await page.goto('/demo/clusters/no-such-cluster');
  expect(res?.status()).toBe(404);
  const err = page.getByTestId('error-page');
  await expect(err.getByRole('heading', { name: 'Cluster not found' })).toBeVisible();
  // The header and navigation stay.
  await expect(
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'On-call' }),
  ).toBeVisible();
  await err.getByRole('link', { name: 'All clusters' }).click();
  await expect(page).toHaveURL(/\/demo\/clusters$/);

  await page.goto('/demo/runs/no-such-run');
  await expect(page.getByTestId('error-page').getByRole('heading', { name: 'Run not found' })).toBeVisible();
  await page.goto('/demo/clusters');
  const cluster = await page.locator('tr[data-cluster="demo-cockroach"] a').first().getAttribute('href');
  await page.goto(`${cluster}/nodes/999`);
  await expect(page.getByTestId('error-page').getByRole('heading', { name: 'Node not found' })).toBeVisible();
  // Compare from the navigation, nothing chosen yet: its empty state, answered 200.
  expect((await page.goto('/demo/compare'))?.status()).toBe(200);
  const cmp = page.getByTestId('compare-empty');
  await expect(cmp).toContainText('Nothing to compare yet');
  await expect(cmp.getByRole('link', { name: 'Runs page' })).toHaveAttribute('href', '/demo/runs');
  expect(await seriousViolations(page)).toEqual([]);
  // Outside an organization too.
  await page.goto('/no-such-org-xyz/clusters');
  await expect(page.getByTestId('error-page')).toBeVisible();
});

test('runs list at 1440 px: 5 long labels stay in their column, paginated with a total', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const ci = cliToken('runs:write', 'ux-runs');
  const label = `labels-${uid()}`;
  const long = (k: string) => `${k}-${'x'.repeat(60)}-${uid()}`;
  for (let i = 0; i < 5; i++) {
    const res = await page.request.post('/api/v1/runs', {
      headers: bearer(ci),
      data: {
        cluster: 'demo-cockroach',
        workload: label,
        tool: 'pgbench',
        labels: { suite: label, a: long('a'), b: long('b'), c: long('c'), d: long('d') },
        // One run "running" for an hour without samples or agent: flagged as stuck.
        ...(i === 0 ? { startedAt: new Date(Date.now() - 3_600_000).toISOString() } : {}),
      },
    });
    expect(res.status(), await res.text()).toBe(200);
  }
  await signInPatiently(page);
  // Empty filter fields are dropped from the URL.
  await page.goto(`/demo/runs?cluster=&tool=&workload=${label}&branch=`);
  await expect(page).toHaveURL(new RegExp(`/demo/runs\\?workload=${label}$`));
  const table = page.getByRole('table', { name: 'Runs' });
  await expect(table.locator('tbody tr')).toHaveCount(5);
  const wrap = await table.evaluate((t) => ({ table: t.scrollWidth, box: t.parentElement!.clientWidth }));
  expect(wrap.table).toBeLessThanOrEqual(wrap.box);
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
  ).toBeLessThanOrEqual(0);
  // Status and verdict stay on screen; labels have their own column, cut with the full text in a tooltip.
  const row = table.locator('tbody tr').first();
  for (const col of ['Status', 'Key metrics', 'Verdict', 'Labels']) {
    const box = (await table.getByRole('columnheader', { name: col }).boundingBox())!;
    expect(box.x + box.width, col).toBeLessThanOrEqual(1440);
  }
  const pill = row.getByTestId('labels').locator('.label').first();
  expect(await pill.getAttribute('title')).toMatch(/=/);
  expect(await pill.evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
  await expect(row.getByTestId('labels')).toContainText('+2 more');
  await expect(table.getByTestId('stuck')).toHaveCount(1);
  await expect(page.getByTestId('total')).toHaveText('5');

  // Pagination: 2 per page → 3 pages, total kept.
  await page.goto(`/demo/runs?workload=${label}&limit=2`);
  await expect(page.getByTestId('pager')).toContainText('1–2 of 5 runs');
  await page.getByRole('link', { name: 'Older →' }).click();
  await expect(page).toHaveURL(/page=2/);
  await expect(page.getByTestId('pager')).toContainText('3–4 of 5 runs');
  await expect(table.locator('tbody tr')).toHaveCount(2);
});
