/**
 * Issue 37 §4 rules: the rule form previews the condition on the cluster's current readings before it is
 * saved (the issue's `node.down > -5` would fire on every node), a rule saved without a summary gets one
 * that says its condition, and turning off a critical built-in rule from its editor asks first.
 */
import { expect, test } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';
import { makeAlertingCluster, postNode, rpc } from '../../fixtures/alerting';

test('rule form: preview per node, default summary, confirmation before disabling a critical built-in', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signInPatiently(page);
  const c = await makeAlertingCluster(page.request, 'rule-preview');
  for (const n of [1, 2, 3, 4, 5]) await postNode(page.request, c, n, 'LIVE');

  await page.goto('/demo/settings/alerting/rules');
  await page.getByRole('button', { name: 'New rule' }).click();
  const ed = page.getByTestId('rule-editor');
  const name = `x-${Date.now()}`;
  await ed.getByLabel('Name', { exact: true }).fill(name);
  await ed.getByLabel(/^Cluster/).selectOption(c.id);
  await ed.getByLabel(/^Series/).selectOption('node.down');
  await ed.getByLabel(/^Threshold/).fill('-5');
  const preview = ed.getByTestId('rule-preview');
  await expect(preview.getByTestId('rule-preview-headline')).toContainText('Would fire on 5 of 5 nodes now', {
    timeout: 20_000,
  });
  await expect(preview.locator('tbody tr')).toHaveCount(5);
  await expect(preview.locator('tbody tr').filter({ hasText: 'node 1' })).toHaveCount(1);

  // A sane threshold: nothing would fire.
  await ed.getByLabel(/^Threshold/).fill('0');
  await expect(preview.getByTestId('rule-preview-headline')).toContainText(
    'Would fire on none of 5 nodes now',
  );
  await expect(preview.locator('tbody tr').first()).toContainText('no');

  // Saved without a summary.
  await ed.getByRole('button', { name: 'Create rule' }).click();
  await expect(ed).toHaveCount(0);
  const rules = await rpc<
    { id: string; name: string; summary: string; builtin: string | null; enabled: boolean }[]
  >(page.request, 'alerting.rules', { clusterId: c.id }, 'GET');
  expect(rules.find((r) => r.name === name)?.summary).toBe(
    'node.down > 0 on node {{node}} of {{cluster}} (now {{value}})',
  );

  // The editor's "enabled" box on a critical built-in asks first; dismissed, the rule stays on.
  const nodeDown = rules.find((r) => r.builtin === 'node_down')!;
  const row = page.locator(`tr[data-rule="${nodeDown.id}"]`);
  await row.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByTestId('rule-editor');
  await edit.getByLabel('enabled').uncheck();
  let asked = '';
  page.once('dialog', (d) => {
    asked = d.message();
    void d.dismiss();
  });
  await edit.getByRole('button', { name: 'Save rule' }).click();
  await expect.poll(() => asked).toContain('critical built-in rule');
  await expect(edit).toBeVisible();
  const after = await rpc<{ enabled: boolean }>(page.request, 'alerting.rule', { id: nodeDown.id }, 'GET');
  expect(after.enabled).toBe(true);
});
