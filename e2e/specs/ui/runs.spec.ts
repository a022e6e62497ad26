import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { signIn } from '../../fixtures/auth';
import { createRunTarget } from '../../fixtures/demo-org';
import { pgbenchOutput, postPgbenchRun } from '../../fixtures/runs';

const uid = () => randomBytes(4).toString('hex');

const postRun = (
  request: APIRequestContext,
  token: string,
  a: {
    cluster: string;
    workload: string;
    branch: string;
    sha: string;
    tps: number;
    seed: number;
    at: string;
  },
) =>
  postPgbenchRun(request, token, {
    ...a,
    output: pgbenchOutput(a.tps, { seed: a.seed, detailed: true }),
    params: { clients: 2, scale: 1 },
    labels: { suite: 'e2e' },
  });

test('runs list → run page → compare two runs with deltas, verdicts and CSV export', async ({ page }) => {
  await signIn(page);
  const { token, cluster } = await createRunTarget(page.request, 'runs-ui');

  const workload = `pgbench-ui-${uid()}`;
  const t0 = Date.now() - 4 * 3_600_000;
  const at = (h: number) => new Date(t0 + h * 3_600_000).toISOString();
  const base = { cluster, workload };
  const main1 = await postRun(page.request, token, {
    ...base,
    branch: 'main',
    sha: 'aaa1111',
    tps: 1000,
    seed: 1,
    at: at(0),
  });
  await postRun(page.request, token, {
    ...base,
    branch: 'main',
    sha: 'aaa2222',
    tps: 1004,
    seed: 2,
    at: at(1),
  });
  // A threshold on tps (10% worse than the main baseline) set through the UI's API.
  const detail = await page.request.get(`/api/v1/runs/${main1}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const workloadId: string = (await detail.json()).workloadId;
  const th = await page.request.post('/api/trpc/thresholds.save', {
    headers: { 'x-org': 'demo' },
    data: { workloadId, metric: 'tps', test: 'percentage', limit: 10, minSamples: 2 },
  });
  expect(th.status(), await th.text()).toBe(200);
  const slow = await postRun(page.request, token, {
    ...base,
    branch: 'feature',
    sha: 'bbb3333',
    tps: 760,
    seed: 3,
    at: at(2),
  });

  // CI's view: the REST comparison against the main baseline flags the regression.
  const cmp = await page.request.get(`/api/v1/runs/${slow}/compare?baseline=main`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(cmp.status(), await cmp.text()).toBe(200);
  const body = await cmp.json();
  expect(body.regression).toBe(true);
  expect(body.verdicts.find((v: { metric: string }) => v.metric === 'tps').verdict).toBe('regression');

  const spec = await (await page.request.get('/api/v1/openapi.json')).json();
  expect(Object.keys(spec.paths)).toEqual(
    expect.arrayContaining(['/runs/{id}/compare', '/compare', '/thresholds', '/alerts', '/alerts/{id}/ack']),
  );

  // Run list, filtered by workload (kept in the URL), with sparklines and verdict badges.
  await page.goto(`/demo/runs?workload=${workload}`);
  const rows = page.getByRole('table', { name: 'Runs' }).locator('tbody tr');
  await expect(rows).toHaveCount(3);
  await expect(page.locator(`tr[data-run="${slow}"] [data-verdict]`)).toHaveText('regression');
  await expect(page.locator(`tr[data-run="${slow}"] svg.spark path`).first()).toBeVisible();
  await expect(page.getByLabel('Workload')).toHaveValue(workload);

  // A run page: charts, summary with units, environment, raw output download.
  await page.locator(`tr[data-run="${slow}"] a.mono`).click();
  await expect(page).toHaveURL(new RegExp(`/demo/runs/${slow}$`));
  await expect(page.getByRole('region', { name: 'Transactions/s' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Summary' })).toContainText('tx/s');
  await expect(page.getByRole('region', { name: 'Environment during the run' })).toBeVisible();
  const [raw] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: /Raw output/ }).click(),
  ]);
  expect(raw.suggestedFilename()).toBe(`run-${slow}-output.txt`);
  expect(readFileSync((await raw.path())!, 'utf8')).toContain('progress: 1.0 s');

  // Compare two runs selected in the list.
  await page.goto(`/demo/runs?workload=${workload}`);
  await page.getByLabel(`Select run ${main1}`).check();
  await page.getByLabel(`Select run ${slow}`).check();
  await page.getByRole('button', { name: /Compare/ }).click();
  await expect(page).toHaveURL(new RegExp(`/demo/compare\\?runs=${main1},${slow}$`));
  const deltas = page.getByRole('table', { name: 'Delta table' });
  await expect(deltas.locator('tr[data-metric="tps"] [data-verdict]')).toHaveText('regression');
  await expect(deltas.locator('tr[data-metric="tps"]')).toContainText('%');
  await expect(page.getByRole('region', { name: 'tps' })).toBeVisible();

  const [csv] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Export CSV' }).click(),
  ]);
  expect(csv.suggestedFilename()).toMatch(/^compare-.*\.csv$/);
  const text = readFileSync((await csv.path())!, 'utf8');
  expect(text.split('\r\n')[0]).toBe(
    'metric,unit,direction,baseline_run,run,baseline,value,change_pct,ci95_lo,ci95_hi,p_value,test,verdict',
  );
  expect(text).toMatch(new RegExp(`^tps,tx/s,higher,${main1},${slow},.*,regression$`, 'm'));

  // The workload page: history charts, the alert raised when the slow run finished, acknowledge it.
  const alerts = await page.request.get(`/api/v1/alerts?workloadId=${workloadId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(alerts.status(), await alerts.text()).toBe(200);
  // One alert per regressed judged metric (tps and latency), all on the slow run.
  expect([...new Set((await alerts.json()).map((a: { runId: string }) => a.runId))]).toEqual([slow]);
  await page.goto(`/demo/workloads/${workloadId}`);
  await expect(page.getByRole('region', { name: 'History of tps' })).toBeVisible();
  const alertRows = page.getByRole('table', { name: 'Alerts' }).locator('tbody tr');
  await expect(alertRows).toHaveCount(2);
  const alertRow = alertRows.first();
  // Triage: acknowledging is one of the regression alert's statuses.
  await alertRow.getByTestId('alert-status').selectOption('acknowledged');
  await alertRow.getByRole('button', { name: 'Save' }).click();
  await expect(alertRow).toContainText('acknowledged');
});
