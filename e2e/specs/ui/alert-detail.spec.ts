/**
 * Issue 37 §3: the alert detail page gives the on-call engineer what Alertmanager and Grafana give: the
 * value with its unit, the rule with its threshold and `for`, links to the cluster and the node, the
 * series around the alert with the threshold line and the firing window, and Ack.
 */
import { expect, test } from '@playwright/test';
import { expectAckedByUser, makeAlertingCluster, ORG, rpc, waitForAlert } from '../../fixtures/alerting';
import { signInPatiently } from '../../fixtures/auth';
import { ingestNodes } from '../../fixtures/ux';

interface TSeriesView {
  source: 'history' | 'evaluations';
  unit: string;
  threshold: number | null;
  from: number;
  to: number;
  data: [number, number | null][];
  windows: { from: number; to: number | null; firedAt: number | null }[];
}

test('alert detail: value with its unit, rule, links, the series chart with the threshold and the firing window, Ack', async ({
  page,
}) => {
  test.setTimeout(150_000);
  await signInPatiently(page);
  const c = await makeAlertingCluster(page.request, 'detail');
  // Store capacity 50 % on every node (the fixture reports 50 of 100 used); the rule fires above 40 %.
  const report = () =>
    ingestNodes(
      page.request,
      c.token,
      c.id,
      [1, 2].map((id) => ({ id, liveness: 'LIVE' })),
    );
  await report();
  await rpc(page.request, 'alerting.createRule', {
    clusterId: c.id,
    name: 'Store above 40 %',
    series: 'node.capacity_pct',
    comparison: 'gt',
    threshold: 40,
    severity: 'warning',
    summary: 'node {{node}} store at {{value}}',
    runbookUrl: 'https://runbooks.example/store-full',
  });
  await report();
  const alert = await waitForAlert(page.request, c.id, 1);

  // What the chart draws, as the REST API gives it to scripts.
  const view = await rpc<TSeriesView>(page.request, 'alerting.series', { id: alert.id }, 'GET');
  expect(view.unit).toBe('%');
  expect(view.threshold).toBe(40);
  expect(view.data.length).toBeGreaterThan(0);
  expect(view.data.filter(([, v]) => v !== null).every(([, v]) => v === 50)).toBe(true);
  expect(view.data.every(([t]) => t >= view.from && t <= view.to)).toBe(true);
  expect(view.windows).toHaveLength(1);
  expect(view.windows[0].to).toBeNull(); // still firing
  expect(view.windows[0].firedAt).not.toBeNull();

  await page.goto(`/${ORG}/alerts/${alert.id}`);
  await expect(page.getByTestId('alert-head')).toHaveAttribute('data-state', 'firing');
  await expect(page.getByRole('heading', { level: 1 })).toContainText(/node 1 store at 50\b/);
  await expect(page.getByTestId('alert-value')).toHaveText('50 %');
  const rule = page.getByTestId('alert-rule');
  await expect(rule).toContainText('Store above 40 %');
  await expect(rule).toContainText('> 40 %');
  await expect(rule).toContainText('for 0 s');
  await expect(page.getByRole('link', { name: c.name })).toHaveAttribute('href', `/${ORG}/clusters/${c.id}`);
  await expect(page.getByTestId('alert-subject').getByRole('link')).toHaveAttribute(
    'href',
    `/${ORG}/clusters/${c.id}/nodes/1`,
  );
  await expect(page.getByRole('link', { name: 'https://runbooks.example/store-full' })).toBeVisible();

  // The chart: the series and the threshold in its legend (with values), drawn as SVG with a shaded window.
  const chart = page.getByRole('region', { name: /node\.capacity_pct \(%\) around the alert/ });
  await expect(chart).toBeVisible();
  const legend = chart.getByRole('list', { name: /legend/ });
  await expect(legend.getByRole('button', { name: /^value/ })).toBeVisible();
  await expect(legend.getByRole('button', { name: /^threshold/ })).toContainText('40');
  await expect(chart.getByText(/dashed: threshold/)).toBeVisible();
  const svg = chart.locator('[_echarts_instance_] svg');
  await expect(svg).toBeVisible();
  expect(await svg.locator('path').count()).toBeGreaterThan(2);

  // Ack from the page: the server records who, and the page says so.
  await page.getByTestId('ack-state').getByRole('button', { name: 'Acknowledge' }).click();
  await expect(page.getByTestId('ack-state')).toContainText('by ');
  await expectAckedByUser(page.request, alert.id);
});
