/**
 * Issue 38 §3: a run that stalled (seconds with no operations) draws its latency with a gap there, never
 * 0 ms and never a line joined across the stall. The output is the real one of cockroachdb/cockroach#47202.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';
import { createRunTarget } from '../../fixtures/demo-org';

const STALL = readFileSync(
  new URL('../../../packages/bench/fixtures/real/issue-47202-workload-kv-stall.txt', import.meta.url),
  'utf8',
);

test('a stalled run: latency has gaps (null samples), the rate drops to 0, and the page says why', async ({
  page,
}) => {
  test.setTimeout(180_000); // the first sign-in and run page are slow on a loaded 2-core machine
  await signInPatiently(page);
  const { token, cluster } = await createRunTarget(page.request, 'gaps');
  const headers = { authorization: `Bearer ${token}` };
  const created = await page.request.post('/api/v1/runs', {
    headers,
    data: {
      cluster,
      workload: `kv-stall-${Date.now()}`,
      tool: 'cockroach-workload',
      git: { branch: 'main' },
    },
  });
  expect(created.status(), await created.text()).toBe(200);
  const { id } = await created.json();
  const out = await page.request.post(`/api/v1/runs/${id}/output`, {
    headers,
    data: { output: STALL, tool: 'cockroach-workload' },
  });
  expect(out.status(), await out.text()).toBe(200);
  expect(
    (await page.request.post(`/api/v1/runs/${id}/finish`, { headers, data: { status: 'failed' } })).status(),
  ).toBe(200);

  // The run's series (what the charts draw): one point per interval, null where the stall has no latency.
  const view = await (
    await page.request.get(
      `/api/trpc/compare.runDetail?input=${encodeURIComponent(JSON.stringify({ id }))}`,
      {
        headers: { 'x-org': 'demo' },
      },
    )
  ).json();
  const series: Record<string, [number, number | null][]> = view.result.data.series;
  const p95 = Object.keys(series).find((k) => /p95/.test(k))!;
  expect(series[p95][0]).toEqual([1, 14.7]);
  expect(series[p95][1]).toEqual([2, null]);
  expect(series[p95].filter(([, v]) => v === 0)).toEqual([]);

  await page.goto(`/demo/runs/${id}`);
  await expect(page.locator('h1').getByTestId('run-status')).toHaveText('failed');
  await expect(page.getByTestId('run-partial')).toBeVisible();
  const latency = page.getByRole('region', { name: /latency|p95/i }).first();
  await expect(latency.locator('[_echarts_instance_] canvas')).toBeVisible();
  const note = latency.getByTestId('chart-gaps');
  await expect(note).toContainText(/no value in \d+ intervals/);
  expect(Number(await note.getAttribute('data-gaps'))).toBeGreaterThan(0);
});
