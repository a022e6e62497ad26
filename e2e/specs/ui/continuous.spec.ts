/**
 * Issue 41 §1/§3/§4 and 38 §1 in the browser: schedule a workload and see its next runs; triage a
 * regression alert as invalid and see the workload's false-alert share change; choose which metrics may
 * judge a workload's runs on its settings form.
 */
import { randomBytes } from 'node:crypto';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';
import { createRunTarget } from '../../fixtures/demo-org';
import { pgbenchOutput, postPgbenchRun } from '../../fixtures/runs';

const uid = () => randomBytes(4).toString('hex');
const trpcGet = async <T>(request: APIRequestContext, proc: string, input: unknown): Promise<T> => {
  const res = await request.get(`/api/trpc/${proc}?input=${encodeURIComponent(JSON.stringify(input))}`, {
    headers: { 'x-org': 'demo' },
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).result.data as T;
};
const trpcPost = async <T>(request: APIRequestContext, proc: string, input: unknown): Promise<T> => {
  const res = await request.post(`/api/trpc/${proc}`, { headers: { 'x-org': 'demo' }, data: input });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).result.data as T;
};

test('schedule a workload: the next runs are listed in its time zone', async ({ page }) => {
  await signInPatiently(page);
  const { cluster } = await createRunTarget(page.request, 'sched');
  const w = await trpcPost<{ id: string }>(page.request, 'workloads.create', {
    name: `nightly-${uid()}`,
    tool: 'hey',
    params: { concurrency: 2 },
    target: 'http://127.0.0.1:9/',
    durationS: 5,
  });
  await page.goto(`/demo/workloads/${w.id}`);
  await expect(page.getByText('Not scheduled: runs start only from Run or the API.')).toBeVisible();

  // Fill after hydration: typed before it, the time zone field kept its default in front ('UTCEurope/Berlin').
  await page.waitForLoadState('networkidle');
  const form = page.getByRole('form', { name: 'Schedule' });
  const zone = form.getByLabel('Time zone');
  await expect(async () => {
    await form.getByLabel('Cron').fill('30 2 * * *');
    await zone.fill('Europe/Berlin');
    await expect(zone).toHaveValue('Europe/Berlin', { timeout: 1000 });
  }).toPass();
  await form.getByRole('checkbox', { name: cluster, exact: true }).check();
  await form.getByRole('button', { name: 'Add schedule' }).click();
  await expect(page.getByRole('status')).toHaveText('Schedule added');

  const sc = page.getByTestId('schedule');
  await expect(sc).toHaveCount(1);
  await expect(sc).toContainText('30 2 * * *');
  await expect(sc).toContainText('(Europe/Berlin)');
  await expect(sc).toContainText(cluster);
  const next = sc.getByTestId('next-run');
  expect(await next.count()).toBeGreaterThanOrEqual(2);
  // Every slot reads 02:30 in Berlin (CET or CEST), one day apart.
  for (const t of await next.allTextContents()) expect(t).toMatch(/ 02:30 (CET|CEST|GMT\+[12])$/);
  const [a, b] = (await next.allTextContents()).slice(0, 2);
  expect(a).not.toBe(b);

  // The same next runs through the API (REST/OpenAPI covers schedules too).
  const list = await trpcGet<{ nextRuns: string[] }[]>(page.request, 'schedules.list', { workloadId: w.id });
  expect(list[0]!.nextRuns.length).toBeGreaterThanOrEqual(2);
  const first = new Date(list[0]!.nextRuns[0]!);
  expect(first.getTime()).toBeGreaterThan(Date.now());
  expect(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      hour: '2-digit',
      minute: '2-digit',
    }).format(first),
  ).toBe('02:30');
});

test('triage a regression alert as invalid: the false-alert share goes from 0 % to 50 % (one of two)', async ({
  page,
}) => {
  await signInPatiently(page);
  const { token, cluster } = await createRunTarget(page.request, 'triage');
  const workload = `pgbench-triage-${uid()}`;
  const t0 = Date.now() - 4 * 3_600_000;
  const at = (h: number) => new Date(t0 + h * 3_600_000).toISOString();
  const post = (branch: string, tps: number, seed: number, h: number) =>
    postPgbenchRun(page.request, token, {
      cluster,
      workload,
      branch,
      sha: `sha${seed}`,
      at: at(h),
      finishedAt: at(h),
      output: pgbenchOutput(tps, { seed }),
    });
  const main1 = await post('main', 1000, 1, 0);
  await post('main', 1004, 2, 1);
  const workloadId = (
    await (
      await page.request.get(`/api/v1/runs/${main1}`, { headers: { authorization: `Bearer ${token}` } })
    ).json()
  ).workloadId as string;
  await trpcPost(page.request, 'thresholds.save', {
    workloadId,
    metric: 'tps',
    test: 'percentage',
    limit: 10,
    minSamples: 2,
    windowSize: 5,
  });
  await post('feature', 760, 3, 2);

  await page.goto(`/demo/workloads/${workloadId}`);
  const alerts = page.getByRole('table', { name: 'Alerts' }).locator('tbody tr');
  // One alert per regressed judged metric: tps (its threshold) and latency (the default test).
  await expect(alerts).toHaveCount(2);
  await expect(page.getByTestId('false-alert-share')).toHaveText('0 %');
  await expect(page.getByTestId('alert-precision')).toContainText('2 alerts');

  const triage = alerts.first().getByTestId('alert-triage');
  await triage.getByTestId('alert-status').selectOption('invalid');
  await triage.getByLabel('Note').fill('noisy neighbour on the CI host');
  await triage.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status')).toHaveText(/^Alert on \S+ triaged invalid$/);
  await expect(page.getByTestId('false-alert-share')).toHaveText('50 %');
  await expect(page.getByTestId('alert-precision')).toContainText('invalid 1');
  await expect(triage).toContainText(/invalid by /);

  // After a reload the share is still the stored one.
  await page.reload();
  await expect(page.getByTestId('false-alert-share')).toHaveText('50 %');
});

test('verdict metrics on the workload form: defaults shown by kind, a choice saved and shown again', async ({
  page,
}) => {
  await signInPatiently(page);
  const w = await trpcPost<{ id: string; name: string }>(page.request, 'workloads.create', {
    name: `verdicts-${uid()}`,
    tool: 'pgbench',
    params: { clients: 1 },
    target: 'postgresql://u@127.0.0.1:5432/db',
  });
  await page.goto(`/demo/workloads/new?edit=${w.id}`);
  const fs = page.getByRole('group', { name: /Verdict metrics/ });
  await expect(fs).toContainText('Defaults: rate, latency, error rate');
  const box = (k: string) => fs.getByRole('checkbox', { name: new RegExp(`^${k}`) });
  for (const k of ['rate', 'latency', 'error rate']) await expect(box(k)).toBeChecked();
  for (const k of ['count', 'set-up time', 'duration']) await expect(box(k)).not.toBeChecked();
  await expect(fs.getByText('(default)')).toHaveCount(3);

  // A typo is named before saving.
  await fs.getByLabel(/Also these metrics/).fill('tpz');
  await expect(page.getByRole('list', { name: 'Problems' })).toContainText(
    "'tpz' is not a metric any parser emits",
  );
  await fs.getByLabel(/Also these metrics/).fill('conn_time_ms');
  await box('latency').uncheck();
  await box('count').check();
  await page.getByRole('button', { name: /^Save/ }).click();
  await expect(page).toHaveURL(/\/demo\/workloads$/);

  const saved = await trpcGet<{ verdictMetrics: string[] }>(page.request, 'workloads.get', { id: w.id });
  expect(saved.verdictMetrics).toEqual(['rate', 'error_rate', 'count', 'conn_time_ms']);
  await page.goto(`/demo/workloads/new?edit=${w.id}`);
  await expect(box('latency')).not.toBeChecked();
  await expect(box('count')).toBeChecked();
  await expect(fs.getByLabel(/Also these metrics/)).toHaveValue('conn_time_ms');

  // Back to the defaults: stored as none chosen.
  await box('latency').check();
  await box('count').uncheck();
  await fs.getByLabel(/Also these metrics/).fill('');
  await page.getByRole('button', { name: /^Save/ }).click();
  await expect(page).toHaveURL(/\/demo\/workloads$/);
  expect(
    (await trpcGet<{ verdictMetrics: string[] }>(page.request, 'workloads.get', { id: w.id })).verdictMetrics,
  ).toEqual([]);
});
