/** Settings forms built from shared parts: the routing page's grouping fields and the cluster pickers. */
import { expect, test, type Page } from '@playwright/test';
import { rpc } from '../../fixtures/alerting';
import { signIn } from '../../fixtures/auth';

type TGrouping = { groupWaitS: number; groupIntervalS: number; repeatIntervalS: number };
const orgGrouping = async (page: Page) =>
  (await rpc<{ grouping: TGrouping }>(page.request, 'alerting.routing', {}, 'GET')).grouping;

test('routing: the org grouping fields show the stored values and save a change', async ({ page }) => {
  await signIn(page).catch(() => signIn(page));
  // The routing form shows once the org has a channel.
  await rpc(page.request, 'alerting.createChannel', {
    name: `grouping-hook-${Date.now()}`,
    kind: 'webhook',
    config: { url: 'http://127.0.0.1:9/never' },
    secret: { hmacSecret: 'x' },
  });
  const before = await orgGrouping(page);
  const form = page.getByTestId('routing-form');
  const repeat = form.getByLabel('Repeat interval (s)');
  /** Opens the page; its three fields show `g`. */
  const open = async (g: TGrouping) => {
    await page.goto('/demo/settings/alerting/routing');
    await expect(form.getByLabel('Group wait (s)')).toHaveValue(String(g.groupWaitS));
    await expect(form.getByLabel('Group interval (s)')).toHaveValue(String(g.groupIntervalS));
    await expect(repeat).toHaveValue(String(g.repeatIntervalS));
  };
  const save = async (repeatIntervalS: number) => {
    await repeat.fill(String(repeatIntervalS));
    await form.getByRole('button', { name: 'Save routing' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  };

  await open(before);
  await expect(repeat).toHaveAttribute('min', '60');
  const changed = { ...before, repeatIntervalS: before.repeatIntervalS + 60 };
  await save(changed.repeatIntervalS);
  expect(await orgGrouping(page)).toMatchObject(changed);
  await open(changed);
  await save(before.repeatIntervalS); // as it was, for the other specs
  expect(await orgGrouping(page)).toMatchObject(before);
});

test('the cluster pickers of the tokens, rules and agents forms list the clusters after their first choice', async ({
  page,
}) => {
  await signIn(page).catch(() => signIn(page));
  const options = (select: ReturnType<Page['getByLabel']>) => select.locator('option').allTextContents();

  await page.goto('/demo/settings/tokens');
  const tokenCluster = page.getByLabel(/^Cluster\b/);
  expect((await options(tokenCluster))[0]).toBe('any cluster');
  expect(await options(tokenCluster)).toContain('demo-cockroach');
  await expect(tokenCluster).toHaveValue('');

  await page.goto('/demo/settings/alerting/rules');
  const scope = page.getByLabel(/^Show/);
  expect((await options(scope))[0]).toBe('all rules');
  expect(await options(scope)).toContain('demo-cockroach');

  await page.goto('/demo/settings/agents');
  await page.getByRole('button', { name: 'Add agent' }).click();
  const enroll = page.getByRole('form', { name: 'Add agent' });
  const agentCluster = enroll.getByLabel(/^Cluster\b/);
  await expect(agentCluster).toHaveAttribute('required', '');
  await expect(agentCluster.locator('option').first()).toBeDisabled();
  await expect(enroll.getByRole('button', { name: 'Enroll' })).toBeDisabled();
  await enroll.getByLabel('Name').fill('picker-check');
  await agentCluster.selectOption({ label: 'demo-cockroach' });
  await expect(enroll.getByRole('button', { name: 'Enroll' })).toBeEnabled();
});
