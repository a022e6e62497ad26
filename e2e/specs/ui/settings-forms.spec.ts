/** Settings forms built from shared parts: the routing page's grouping fields and the cluster pickers. */
import { expect, test, type Page } from '@playwright/test';
import { rpc } from '../../fixtures/alerting';
import { signIn } from '../../fixtures/auth';

type TGrouping = { groupWaitS: number; groupIntervalS: number; repeatIntervalS: number };
const orgGrouping = async (page: Page) =>
  (await rpc<{ grouping: TGrouping }>(page.request, 'alerting.routing', {}, 'GET')).grouping;

test('routing: the org grouping fields show the stored values and save a change', async ({ page }) => {
  await signIn(page).catch(() => signIn(page));
  const before = await orgGrouping(page);
  await page.goto('/demo/settings/alerting/routing');
  const form = page.getByTestId('routing-form');
  await expect(form.getByLabel('Group wait (s)')).toHaveValue(String(before.groupWaitS));
  await expect(form.getByLabel('Group interval (s)')).toHaveValue(String(before.groupIntervalS));
  const repeat = form.getByLabel('Repeat interval (s)');
  await expect(repeat).toHaveValue(String(before.repeatIntervalS));
  await expect(repeat).toHaveAttribute('min', '60');

  const save = async (value: number) => {
    await repeat.fill(String(value));
    await form.getByRole('button', { name: 'Save routing' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  };
  await save(before.repeatIntervalS + 60);
  expect(await orgGrouping(page)).toMatchObject({ ...before, repeatIntervalS: before.repeatIntervalS + 60 });
  await save(before.repeatIntervalS); // as it was, for the other specs
  expect(await orgGrouping(page)).toMatchObject(before);
});

test('the cluster pickers of the tokens, rules and agents forms list the clusters after their first choice', async ({
  page,
}) => {
  await signIn(page).catch(() => signIn(page));
  const options = (select: ReturnType<Page['getByLabel']>) => select.locator('option').allTextContents();

  await page.goto('/demo/settings/tokens');
  const tokenCluster = page.getByLabel(/^Cluster/);
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
  const agentCluster = enroll.getByLabel(/^Cluster/);
  await expect(agentCluster).toHaveAttribute('required', '');
  await expect(agentCluster.locator('option').first()).toBeDisabled();
  await expect(enroll.getByRole('button', { name: 'Enroll' })).toBeDisabled();
  await enroll.getByLabel('Name').fill('picker-check');
  await agentCluster.selectOption({ label: 'demo-cockroach' });
  await expect(enroll.getByRole('button', { name: 'Enroll' })).toBeEnabled();
});
