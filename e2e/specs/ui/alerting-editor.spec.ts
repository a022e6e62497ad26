/** Alerting settings in the browser: the rules editor (metric rules), the routing form, the cluster page's alert timeline. */
import { expect, test } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';
import { makeAlertingCluster, makeFiringCluster, postNode, rpc, waitForAlert } from '../../fixtures/alerting';

// Labels are matched from their start: a <select>'s accessible name also holds its options' text.

test('rules editor: a metric rule shows its fields, is validated like the API, and is listed in PromQL words', async ({
  page,
}) => {
  await signInPatiently(page);
  const c = await makeAlertingCluster(page.request, 'rule-editor');
  await page.goto('/demo/settings/alerting/rules');
  await page.getByRole('button', { name: 'New rule' }).click();
  const ed = page.getByTestId('rule-editor');
  const name = `p99 billing ${Date.now()}`;
  await ed.getByLabel('Name', { exact: true }).fill(name);
  await ed.getByLabel(/^Cluster/).selectOption(c.id);
  await expect(ed.getByTestId('metric-fields')).toHaveCount(0);
  await ed.getByLabel(/^Series/).selectOption('metric');
  const m = ed.getByTestId('metric-fields');
  await expect(m).toBeVisible();
  await m.getByLabel(/^Metric name/).fill('sql_service_latency');
  await m.getByLabel(/^Function/).selectOption('ratio');
  await ed.getByRole('button', { name: 'Create rule' }).click();
  await expect(ed.getByRole('alert')).toContainText('metric.per');

  await m.getByLabel(/^Function/).selectOption('quantile');
  await m.getByLabel(/^Quantile/).fill('0.99');
  await m.getByLabel(/^Label matchers/).fill('app=billing');
  await m.getByLabel(/^Scale/).fill('0.000001');
  await ed.getByLabel(/^Threshold/).fill('500');
  await ed.getByRole('button', { name: 'Create rule' }).click();
  await expect(ed).toHaveCount(0);
  const row = page.getByTestId('rules').locator('tr').filter({ hasText: name });
  await expect(row).toContainText(
    'histogram_quantile(0.99, rate(sql_service_latency_bucket{app="billing"}[120s]))',
  );
  const rules = await rpc<{ name: string; metric: unknown }[]>(
    page.request,
    'alerting.rules',
    { clusterId: c.id },
    'GET',
  );
  expect(rules.find((r) => r.name === name)?.metric).toEqual({
    name: 'sql_service_latency',
    matchers: { app: 'billing' },
    fn: 'quantile',
    quantile: 0.99,
    scale: 0.000001,
    windowS: 120,
  });
});

test('routing form: a cluster override sends critical alerts to a chosen channel', async ({ page }) => {
  await signInPatiently(page);
  const c = await makeAlertingCluster(page.request, 'routing-form');
  const chName = `route-hook-${Date.now()}`;
  const ch = await rpc<{ id: string }>(page.request, 'alerting.createChannel', {
    name: chName,
    kind: 'webhook',
    config: { url: 'http://127.0.0.1:9/never' },
    secret: { hmacSecret: 'x' },
  });
  await page.goto(`/demo/settings/alerting/routing?cluster=${c.id}`);
  const form = page.getByTestId('routing-form');
  const critical = form.locator('fieldset[data-severity="critical"]');
  await critical.getByLabel('route critical alerts').check();
  await critical.getByLabel(chName).check();
  await form.getByRole('button', { name: 'Save routing' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  const routing = await rpc<{
    clusterId: string | null;
    routes: { severity: string; channelIds: string[] }[];
  }>(page.request, 'alerting.routing', { clusterId: c.id }, 'GET');
  expect(routing.clusterId).toBe(c.id);
  expect(routing.routes).toEqual([expect.objectContaining({ severity: 'critical', channelIds: [ch.id] })]);
  // Reloaded, the form shows what was stored.
  await page.reload();
  await expect(
    page.getByTestId('routing-form').locator('fieldset[data-severity="critical"]').getByLabel(chName),
  ).toBeChecked();
});

test('cluster page: the alert timeline shows a node-down alert firing, then resolved', async ({ page }) => {
  await signInPatiently(page);
  const { c, alert } = await makeFiringCluster(page.request, 'timeline', 5, [1]);
  await page.goto(`/demo/clusters/${c.id}`);
  const lane = page.getByTestId('alert-timeline').locator(`li[data-alert="${alert.id}"]`);
  await expect(lane).toHaveAttribute('data-state', 'firing');
  await expect(lane).toContainText('node 5');
  await expect(lane.getByRole('link')).toHaveAttribute('href', `/demo/alerts/${alert.id}`);

  await postNode(page.request, c, 5, 'LIVE');
  await waitForAlert(page.request, c.id, 5, 'resolved');
  await page.reload();
  await expect(lane).toHaveAttribute('data-state', 'resolved');
});
