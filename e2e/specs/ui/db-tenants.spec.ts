/**
 * Issue 37 §5: the recorded v25+ `/_status/vars` (node_id and tenant labels) posted through ingest as the
 * agent sends it, its counters advancing 10 inserts/s for the app tenant and 2/s for system; the cluster
 * page's tenant selector sums, splits and filters the SQL panels.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { createTokenVia, signIn } from '../../fixtures/auth';
import { createDemoCluster } from '../../fixtures/demo-org';

const FIXTURE = path.resolve(
  import.meta.dirname,
  '../../../apps/agent/src/inputs/prometheus/fixtures/v25.3-status-vars-tenant.txt',
);
/** Per-second increases after the recorded scrape. */
const RATES: Record<string, Record<string, number>> = {
  sql_insert_count: { demoapp: 10, system: 2 },
  sql_select_count: { demoapp: 3 },
};

function scrapes(now: number) {
  const types = new Map<string, string>();
  const vars: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const line of fs.readFileSync(FIXTURE, 'utf8').split('\n')) {
    const t = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (t) types.set(t[1], t[2]);
    const m = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (m)
      vars.push({
        name: m[1],
        labels: Object.fromEntries([...m[2].matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]])),
        value: Number(m[3]),
      });
  }
  const samples: unknown[] = [];
  // 20 scrapes 30 s apart, the last 10 s ago.
  for (let k = 0; k < 20; k++) {
    const ts = now - 10_000 - (19 - k) * 30_000;
    for (const v of vars) {
      const { node_id, ...labels } = v.labels;
      const rate = RATES[v.name]?.[labels.tenant] ?? 0;
      samples.push({
        kind: 'metric', ts, node_id: Number(node_id), host: 'crdb-n1', name: v.name,
        type: types.get(v.name) ?? 'untyped', labels, value: v.value + rate * k * 30,
      }); // prettier-ignore
    }
  }
  return samples;
}

test('the tenant selector sums, splits and filters the SQL panels', async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page).catch(() => signIn(page));
  const name = `tenants-${Date.now()}`;
  const cluster = await createDemoCluster(page.request, name);
  const token = await createTokenVia(page.request, 'demo', {
    name,
    scopes: ['ingest'],
    clusterId: cluster.id,
  });
  const res = await page.request.post('/api/v1/ingest', {
    headers: { authorization: `Bearer ${token}` },
    data: { batchId: `e2e-tenants-${cluster.id}`, cluster: cluster.id, samples: scrapes(Date.now()) },
  });
  expect(res.status(), await res.text()).toBe(202);

  await page.goto(`/demo/clusters/${cluster.id}?range=15m`);
  const latest = page.getByTestId('db-latest');
  const statements = page.getByRole('region', { name: /^SQL statements\/s/ });
  const legend = statements.getByRole('list', { name: /legend/ });
  // All tenants summed: 10 + 2 inserts and 3 selects a second.
  await expect(latest).toContainText('15 statements/s', { timeout: 60_000 });
  await expect(legend).toContainText('insert');
  await expect(legend).not.toContainText('demoapp');

  const select = page.getByTestId('db-tenant');
  await expect(select.locator('option')).toHaveText([
    'All tenants (sum)',
    'All tenants, split',
    'demoapp',
    'system',
  ]);

  await select.selectOption('demoapp');
  await expect(page).toHaveURL(/tenant=demoapp/);
  await expect(statements).toHaveAccessibleName('SQL statements/s · tenant demoapp');
  await expect(latest).toContainText('13 statements/s');

  await select.selectOption('system');
  await expect(latest).toContainText('2 statements/s');
  // One line (system runs inserts only): no legend.
  await expect(legend).toHaveCount(0);

  await select.selectOption('*');
  await expect(statements).toHaveAccessibleName('SQL statements/s by tenant');
  await expect(legend).toContainText('insert · demoapp');
  await expect(legend).toContainText('insert · system');
  await expect(latest).toContainText('15 statements/s');

  // The choice survives a reload (it is in the URL).
  await page.reload();
  await expect(page.getByTestId('db-tenant')).toHaveValue('*');
});
