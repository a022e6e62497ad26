/**
 * Issue 13 §2/§3: one verdict (same run, same baseline) on the run page, runs list, compare and the
 * workload's alert; chart axes and event times in one time zone (a New York browser); drag-to-zoom puts
 * the range in the URL.
 */
import { randomBytes } from 'node:crypto';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';
import { createRunTarget, openDemoCluster } from '../../fixtures/demo-org';
import { pgbenchOutput, postPgbenchRun } from '../../fixtures/runs';

const uid = () => randomBytes(4).toString('hex');

/** Finished right away, as CI submits: the wall clock says 0 s, the output says 30 s. */
const submitRun = (
  request: APIRequestContext,
  token: string,
  a: { cluster: string; workload: string; branch: string; tps: number; seed: number; at: string },
) =>
  postPgbenchRun(request, token, {
    ...a,
    sha: `sha${a.seed}`,
    output: pgbenchOutput(a.tps, { seed: a.seed }),
    finishedAt: a.at,
  });

test('the same run and baseline show the same verdict on the run page, list, compare and alert', async ({
  page,
}) => {
  await signInPatiently(page);
  const { token, cluster } = await createRunTarget(page.request, 'verdict');
  const workload = `pgbench-verdict-${uid()}`;
  const t0 = Date.now() - 4 * 3_600_000;
  const at = (h: number) => new Date(t0 + h * 3_600_000).toISOString();
  const main1 = await submitRun(page.request, token, {
    cluster,
    workload,
    branch: 'main',
    tps: 1000,
    seed: 1,
    at: at(0),
  });
  await submitRun(page.request, token, { cluster, workload, branch: 'main', tps: 1004, seed: 2, at: at(1) });
  const workloadId: string = (
    await (
      await page.request.get(`/api/v1/runs/${main1}`, { headers: { authorization: `Bearer ${token}` } })
    ).json()
  ).workloadId;
  const th = await page.request.post('/api/trpc/thresholds.save', {
    headers: { 'x-org': 'demo' },
    data: { workloadId, metric: 'tps', test: 'percentage', limit: 10, minSamples: 2, windowSize: 5 },
  });
  expect(th.status(), await th.text()).toBe(200);
  const slow = await submitRun(page.request, token, {
    cluster,
    workload,
    branch: 'feature',
    tps: 760,
    seed: 3,
    at: at(2),
  });
  const baseline = 'main (last 2 runs)';

  const seen: { where: string; verdict: string | null; baseline: string | null }[] = [];
  const read = async (where: string, scope: ReturnType<Page['locator']>) => {
    const badge = scope.locator('[data-baseline]').first();
    await expect(badge.locator('[data-verdict]')).toBeVisible();
    // The rule is in the tooltip wherever the verdict is.
    expect(await badge.getAttribute('title')).toMatch(/p < 0\.05.*at least 9%/s);
    seen.push({
      where,
      verdict: await badge.locator('[data-verdict]').textContent(),
      baseline: await badge.getAttribute('data-baseline'),
    });
  };

  // Run page: one status and one health badge, the verdict vs the named baseline, a real duration.
  await page.goto(`/demo/runs/${slow}`);
  await expect(page.locator('h1').getByTestId('run-status')).toHaveText('succeeded');
  await expect(page.locator('h1 .badge')).toHaveCount(2);
  await read('run page', page.getByTestId('run-verdict'));
  await expect(page.getByTestId('run-verdict')).toContainText(`vs ${baseline}`);
  await expect(page.getByTestId('baseline-name')).toContainText(baseline);
  await expect(page.getByTestId('run-duration')).toHaveText(/^30s\s*\(from the output\)$/);

  // Compare, opened from the run page with the same baseline.
  await page.getByRole('link', { name: 'Open in compare' }).click();
  await expect(page).toHaveURL(/\/demo\/compare\?runs=.+&baseline=main%3A5$/);
  await read('compare', page.locator(`[data-testid="compare-verdict"][data-run="${slow}"]`));

  // Runs list.
  await page.goto(`/demo/runs?workload=${workload}`);
  await read('list', page.locator(`[data-testid="list-verdict"][data-run="${slow}"]`));

  // The workload's alert: human text naming the same baseline window, and the run's verdict.
  await page.goto(`/demo/workloads/${workloadId}`);
  const alert = page.getByRole('table', { name: 'Alerts' }).locator('tbody tr').first();
  await expect(alert.getByTestId('alert-message')).toHaveText(
    /^tps [\d,.]+ tx\/s is \d+\.\d % below the baseline [\d,.]+ tx\/s \(main, last 2 runs; limit 10 %\)$/,
  );
  await read('alert', alert.getByTestId('alert-verdict'));

  expect(seen.map((s) => s.where)).toEqual(['run page', 'compare', 'list', 'alert']);
  for (const s of seen)
    expect({ verdict: s.verdict, baseline: s.baseline }).toEqual({ verdict: 'regression', baseline });

  // A history point opens its run.
  await expect(page.getByRole('region', { name: 'History of tps' })).toBeVisible();
});

const NY = 'America/New_York';
const hhmm = (ms: number, zone: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(ms);
const wall = (ms: number, zone: string) => {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit',
      hour: '2-digit', minute: '2-digit', second: '2-digit',
    }).formatToParts(ms).map((x) => [x.type, x.value]),
  ); // prettier-ignore
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
};
const minutes = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));
/** Is `label` (HH:mm) within [from, to] read as wall times in `zone` (the window is under a day)? */
const inWindow = (label: string, from: number, to: number, zone: string) => {
  const a = minutes(hhmm(from, zone));
  const b = minutes(hhmm(to, zone));
  const m = minutes(label);
  return a <= b ? m >= a && m <= b : m >= a || m <= b;
};

async function tickLabels(page: Page, chart: string): Promise<string[]> {
  const texts = await page.getByRole('region', { name: chart }).locator('svg text').allTextContents();
  return texts.map((t) => t.trim()).filter((t) => /^\d\d:\d\d$/.test(t));
}

test.describe('in a New York browser', () => {
  test.use({ timezoneId: NY });

  test('chart ticks, events list and custom range agree on one zone; UTC on request', async ({ page }) => {
    await signInPatiently(page);
    const path = await openDemoCluster(page);
    await page.goto(`${path}?range=24h`);
    const first = page.getByTestId('events').locator('time').first();
    await expect(first).toBeVisible();
    const ts = Number(await first.getAttribute('data-ts'));
    await expect(first).toHaveText(`${wall(ts, NY)} EST`);

    // One hour around the event: the axis ticks are New York wall times (a UTC axis would be 5 h off).
    const from = ts - 30 * 60_000;
    const to = ts + 30 * 60_000;
    await page.goto(`${path}?from=${from}&to=${to}`);
    const chart = 'Under-replicated & unavailable ranges';
    await expect.poll(() => tickLabels(page, chart)).not.toEqual([]);
    const ny = await tickLabels(page, chart);
    expect(
      ny.every((l) => inWindow(l, from, to, NY)),
      `ticks ${ny.join(' ')} vs ${hhmm(from, NY)}–${hhmm(to, NY)}`,
    ).toBe(true);
    expect(ny.some((l) => inWindow(l, from, to, 'UTC'))).toBe(false);
    await expect(page.getByTestId('events').locator('time').first()).toHaveText(/ EST$/);
    await expect(page.getByLabel(/^From \(EST\)/)).toHaveValue(wall(from, NY).slice(0, 16).replace(' ', 'T'));

    // Switch to UTC: ticks, events and the custom range follow, and the URL keeps it.
    await page.getByRole('group', { name: 'Time zone' }).getByRole('link', { name: 'UTC' }).click();
    await expect(page).toHaveURL(/tz=utc/);
    await expect(page.getByTestId('zone')).toHaveAttribute('data-zone', 'UTC');
    await expect
      .poll(async () => (await tickLabels(page, chart)).every((l) => inWindow(l, from, to, 'UTC')))
      .toBe(true);
    await expect(page.getByTestId('events').locator('time').first()).toHaveText(/ UTC$/);
    await expect(page.getByLabel(/^From \(UTC\)/)).toHaveValue(new Date(from).toISOString().slice(0, 16));
  });
});

test('dragging across a time chart zooms: the range goes into the URL', async ({ page }) => {
  await signInPatiently(page);
  const path = await openDemoCluster(page);
  await page.goto(`${path}?range=6h`);
  const panel = page.getByRole('region', { name: 'CPU vs limit' });
  const canvas = panel.getByTestId('chart-canvas');
  await expect(canvas.locator('svg')).toBeVisible();
  // The drag needs the charts' data, which loads after the page.
  await expect(panel).toHaveAttribute('aria-busy', 'false');
  await expect(panel.getByText('Drag across the chart to zoom in.')).toBeVisible();
  await canvas.scrollIntoViewIfNeeded();
  const box = (await canvas.boundingBox())!;
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * 0.35, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.55, y, { steps: 8 });
  await page.mouse.move(box.x + box.width * 0.7, y, { steps: 8 });
  await page.mouse.up();
  await expect(page).toHaveURL(/[?&]from=\d+&to=\d+/);
  const u = new URL(page.url());
  expect(u.searchParams.get('range')).toBeNull();
  const span = Number(u.searchParams.get('to')) - Number(u.searchParams.get('from'));
  // About 35% of the 6 h window (the plot area is a little narrower than the panel).
  expect(span).toBeGreaterThan(60 * 60_000);
  expect(span).toBeLessThan(3 * 60 * 60_000);
  await expect(
    page.getByRole('group', { name: 'Time range' }).getByRole('button', { name: 'Custom' }),
  ).toHaveClass(/active/);
});
