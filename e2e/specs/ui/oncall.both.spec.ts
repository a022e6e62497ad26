import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';

test.use({ viewport: { width: 360, height: 780 } });

test('on-call view at 360 px: one big status, worst-first tiles, no chart library, installable', async ({
  page,
}, testInfo) => {
  await signInPatiently(page);
  const scripts: string[] = [];
  page.on('response', (r) => {
    if (r.request().resourceType() === 'script') scripts.push(r.url());
  });
  await page.goto('/demo/oncall');
  // Other specs may add clusters to the demo org: look at the demo cluster's section.
  const section = page.getByRole('region', { name: 'demo-cockroach' });
  const status = section.getByTestId('oncall-status');
  await expect(status).toBeVisible();
  await expect(status).toContainText(/All \d+ live|\d+ (dead|suspect)|\d+\/\d+ live|unavailable/);
  await expect(status).toContainText('demo-cockroach');

  const tiles = section.locator('.tiles li');
  await expect(tiles).toHaveCount(5);
  await expect(tiles.first()).toContainText(/ago/);
  // Ages keep moving without a reload (the page clock ticks every second).
  const heard = tiles.first().locator('.age');
  const before = (await heard.textContent()) ?? '';
  await expect(heard).not.toHaveText(before, { timeout: 5000 });
  // Worst first: ranks never improve → worsen along the list.
  const rank = ['DEAD', 'UNAVAILABLE', 'STALE', 'UNKNOWN', 'DECOMMISSIONING', 'DRAINING', 'STARTING', 'LIVE'];
  const states = await tiles.evaluateAll((els) => els.map((e) => e.getAttribute('data-state') ?? ''));
  const ranks = states.map((s) => rank.indexOf(s));
  expect(ranks).toEqual([...ranks].sort((a, b) => a - b));

  // Fits the phone: no horizontal scrolling.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);

  // PWA manifest with icons.
  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  expect(href).toBe('/demo/oncall/manifest.webmanifest');
  const manifest = await (await page.request.get(href!)).json();
  expect(manifest.start_url).toBe('/demo/oncall');
  expect(manifest.icons.map((i: { sizes: string }) => i.sizes)).toEqual(
    expect.arrayContaining(['192x192', '512x512']),
  );
  expect((await page.request.get('/icon-192.png')).headers()['content-type']).toContain('image/png');

  // Live updates connected, and no ECharts on this route.
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  expect(scripts.length).toBeGreaterThan(0);
  let gzipped = 0;
  for (const s of scripts) {
    const body = await (await page.request.get(s)).text();
    expect(body, s).not.toContain('echarts');
    gzipped += gzipSync(body, { level: 9 }).length;
  }
  // Fast on a slow network: every script the route loads, gzipped, stays under 60 KB.
  console.log(`[oncall] ${scripts.length} scripts, ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
  expect(gzipped).toBeLessThan(60 * 1024);

  const shot = await page.screenshot({ fullPage: true, path: testInfo.outputPath('oncall-360.png') });
  await testInfo.attach('oncall-360', { body: shot, contentType: 'image/png' });
});
