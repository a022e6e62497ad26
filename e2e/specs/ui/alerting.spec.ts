import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';
import { expectAckedByUser, getAlert, makeFiringCluster } from '../../fixtures/alerting';

test('a node reported DEAD fires: alerts page with URL filters, detail with history, silence from the alert', async ({
  page,
}) => {
  await signInPatiently(page);
  const { c, alert } = await makeFiringCluster(page.request, 'alerts-page', 7, [1]);

  // Filters live in the URL: this cluster, firing only.
  await page.goto(`/demo/alerts?state=firing&cluster=${c.id}`);
  const row = page.locator(`tr[data-alert="${alert.id}"]`);
  await expect(row).toHaveAttribute('data-state', 'firing');
  await expect(row).toContainText('node 7');
  await expect(row.locator('[data-badge="critical"]')).toBeVisible();
  await expect(page.locator('tbody tr')).toHaveCount(1); // node 1 is LIVE: no alert
  // Toggling a chip edits the URL; "resolved" only → nothing of this cluster.
  await page.locator('[data-filter="state-firing"]').click();
  await expect(page).toHaveURL(new RegExp(`/demo/alerts\\?cluster=${c.id}$`));
  await expect(row).toBeVisible();
  await page.goto(`/demo/alerts?state=resolved&cluster=${c.id}`);
  await expect(page.getByTestId('alerts-empty')).toHaveText('No alerts match these filters.');

  // Detail: state and history.
  await page.goto(`/demo/alerts/${alert.id}`);
  await expect(page.getByTestId('alert-head')).toHaveAttribute('data-state', 'firing');
  await expect(page.getByTestId('alert-history')).toContainText('firing');

  // Silence from the alert: it stays listed, marked silenced.
  await page.getByRole('button', { name: 'Silence…' }).click();
  const form = page.getByTestId('silence-form');
  await expect(form).toContainText('node 7');
  await form.getByLabel('Comment').fill('replacing the disk of n7 <b>now</b>');
  await form.getByRole('button', { name: 'Create silence' }).click();
  await expect(page.getByTestId('alert-head').locator('[data-badge="silenced"]')).toBeVisible();
  expect((await getAlert(page.request, alert.id)).silenced).toBe(true);
  await page.goto(`/demo/alerts?cluster=${c.id}`);
  await expect(row.locator('[data-badge="silenced"]')).toBeVisible();

  // Settings → Alerting → Silences: start, end, author and the comment, as text (escaped).
  await page.goto('/demo/settings/alerting/silences');
  const s = page.locator('tr[data-active="true"]').filter({ hasText: 'replacing the disk of n7' });
  await expect(s).toContainText('<b>now</b>');
  await expect(s).toContainText('node 7');
  await expect(s).not.toContainText('former member');
  await s.getByRole('button', { name: 'End now' }).click();
  await expect(
    page.locator('tr[data-active="true"]').filter({ hasText: 'replacing the disk of n7' }),
  ).toHaveCount(0);
});

test('a silence needs a matcher and a comment, and lists what it mutes before it is saved', async ({
  page,
}) => {
  await signInPatiently(page);
  const { c, alert } = await makeFiringCluster(page.request, 'silence-preview', 4, [1]);
  await page.goto('/demo/settings/alerting/silences');
  const form = page.getByTestId('silence-form');
  const create = form.getByRole('button', { name: 'Create silence' });
  const preview = page.getByTestId('silence-preview');

  // No matcher: refused, even with a comment (and the server refuses it too).
  await expect(preview).toContainText('Choose at least one of cluster, node or rule');
  await form.getByLabel('Comment').fill('swap the disks');
  await expect(create).toBeDisabled();
  const res = await page.request.post('/api/trpc/alerting.createSilence', {
    headers: { 'x-org': 'demo' },
    data: { endsAt: new Date(Date.now() + 3_600_000).toISOString(), comment: 'all of it' },
  });
  expect(res.status()).toBe(400);
  expect(await res.text()).toContain('at least one of cluster, node or rule');

  // A cluster: the preview lists its firing alert before anything is saved.
  await form.getByLabel('Cluster').selectOption(c.id);
  await expect(preview).toContainText('Mutes 1 alert now');
  await expect(preview.locator(`li[data-alert="${alert.id}"]`)).toContainText('firing');
  expect((await getAlert(page.request, alert.id)).silenced).toBe(false);
  // A node that has no alert: matches nothing now.
  await form.getByLabel('Node id').fill('9');
  await expect(preview).toContainText('Matches no alert now');
  await form.getByLabel('Node id').fill('4');
  await expect(preview).toContainText('Mutes 1 alert now');

  // A comment is required.
  await form.getByLabel('Comment').fill('   ');
  await expect(create).toBeDisabled();
  await form.getByLabel('Comment').fill('swap the disks of n4');
  await create.click();
  await expect(
    page.locator('tr[data-active="true"]').filter({ hasText: 'swap the disks of n4' }),
  ).toBeVisible();
  expect((await getAlert(page.request, alert.id)).silenced).toBe(true);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 360, height: 780 } });

  test('on-call page lists the firing alert first and Ack shows who acknowledged it and when', async ({
    page,
  }) => {
    await signInPatiently(page);
    const { alert } = await makeFiringCluster(page.request, 'oncall-ack', 3);

    await page.goto('/demo/oncall');
    const list = page.getByTestId('oncall-alerts');
    const item = list.locator(`li[data-alert="${alert.id}"]`);
    await expect(item).toBeVisible();
    await expect(list.locator('li').first()).toHaveAttribute('data-state', 'firing');
    await expect(item.getByTestId('alert-age')).toContainText(/firing \d+[smh]/);
    await expect(page.getByRole('button', { name: 'Enable notifications' })).toBeVisible();

    await item.getByRole('button', { name: 'Ack' }).click();
    const acked = item.getByTestId('acked');
    await expect(acked).toContainText(/Acknowledged by .+ · \d+s ago/);
    await expect(acked).not.toContainText(/someone|former member/);
    await expectAckedByUser(page.request, alert.id);

    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
});

test('channel "Send test" reaches a local webhook receiver and shows in the delivery log', async ({
  page,
}) => {
  const got: { body: string; sig: string | undefined }[] = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      got.push({ body, sig: req.headers['x-clusterscope-signature'] as string | undefined });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as AddressInfo).port;
  try {
    await signInPatiently(page);
    await page.goto('/demo/settings/alerting/channels');
    const form = page.getByTestId('channel-form');
    const name = `hook-${Date.now()}`;
    await form.getByLabel('Kind').selectOption('webhook');
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('URL').fill(`http://127.0.0.1:${port}/alerts`);
    await form.getByLabel('HMAC secret').fill('e2e-hmac-secret');
    await form.getByRole('button', { name: 'Add channel' }).click();

    const channel = page.getByRole('region', { name });
    await expect(channel).toContainText('No deliveries yet.');
    await channel.getByRole('button', { name: 'Send test' }).click();
    const row = channel.locator('tr[data-delivery]').first();
    await expect(row).toHaveAttribute('data-status', 'sent');
    await expect(row).toContainText('test');
    await expect(row.locator('td').nth(3)).toHaveText('1'); // attempts

    expect(got).toHaveLength(1);
    const payload = JSON.parse(got[0].body);
    expect(payload.version).toBe('4');
    expect(got[0].sig).toBe(
      `sha256=${createHmac('sha256', 'e2e-hmac-secret').update(got[0].body).digest('hex')}`,
    );

    // A receiver that is down: the log shows the failure and its error.
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
    await channel.getByRole('button', { name: 'Send test' }).click();
    const failed = channel.locator('tr[data-delivery]').first();
    await expect(failed).not.toHaveAttribute('data-status', 'sent');
    await expect(failed.locator('td.err')).not.toHaveText('');
  } finally {
    receiver.closeAllConnections();
    receiver.close();
  }
});
