/**
 * Issue 15 §5: three CockroachDB nodes on loopback (fixtures/crdb-nodes.ts: /_status/nodes, liveness and
 * a recorded /_status/vars whose counters advance) → ingest → the cluster page's database panels show
 * the statements/s and p99 the fixture implies.
 *
 * Delivery: with the agent's prometheus input present (apps/agent/src/inputs/prometheus, branch ag) the
 * real agent scrapes the three nodes; until then this spec scrapes them itself with a minimal reader and
 * posts the same `metric` samples through POST /api/v1/ingest, as the agent would.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { buildAgentDist, spawnAgent, type AgentProcess } from '../../fixtures/agent';
import { createTokenVia, signIn } from '../../fixtures/auth';
import { createDemoCluster } from '../../fixtures/demo-org';
import {
  histogramQuantile,
  LATENCY_BUCKETS,
  parseVars,
  startCrdbNodes,
  STATEMENT_RATES,
  type TCrdbNodes,
} from '../../fixtures/crdb-nodes';
import { waitFor } from '../../fixtures/launch';
import { PORT } from '../../playwright.config';

const REAL_AGENT = fs.existsSync(
  path.resolve(import.meta.dirname, '../../../apps/agent/src/inputs/prometheus'),
);
/** The families the database panels read (the agent's default allowlist covers them). */
const FAMILIES =
  /^(sql_(select|insert|update|delete)_count|sql_service_latency_(bucket|sum|count)|sql_txn_(commit|abort)_count|sql_conns|capacity(_used|_available)?|livebytes|sys_cpu_combined_percent_normalized|sys_rss|replicas(_leaseholders)?)$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary']);

let nodes: TCrdbNodes;
let agent: AgentProcess | undefined;
let work: string;

test.beforeAll(async () => {
  nodes = await startCrdbNodes();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-e2e-dbm-'));
});
test.afterAll(async () => {
  if (agent) {
    agent.child.kill('SIGKILL');
    await agent.exited;
  }
  await nodes?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** The spec's stand-in for the agent: one scrape of every node, posted as one ingest batch. */
async function scrapeAndPost(page: Page, token: string, clusterId: string, round: number) {
  const samples: unknown[] = [];
  for (const [i, url] of nodes.urls.entries()) {
    const node = i + 1;
    const ts = Date.now();
    const text = await (await fetch(`${url}/_status/vars`)).text();
    for (const m of parseVars(text)) {
      if (!FAMILIES.test(m.name) || !Number.isFinite(m.value)) continue;
      samples.push({
        kind: 'metric', ts, node_id: node, host: `crdb-n${node}`, name: m.name,
        type: TYPES.has(m.type) ? m.type : 'untyped', labels: m.labels, value: m.value,
      }); // prettier-ignore
    }
  }
  const res = await page.request.post('/api/v1/ingest', {
    headers: { authorization: `Bearer ${token}` },
    data: { batchId: `e2e-dbm-${clusterId}-${round}`, cluster: clusterId, samples },
  });
  expect(res.status(), await res.text()).toBe(202);
}

function startRealAgent(token: string) {
  const yaml = [
    `url: http://127.0.0.1:${PORT}`,
    `token: ${token}`,
    'host: e2e-dbm',
    'interval: 1000ms',
    // 'batch delivered' is a debug line.
    'log_level: debug',
    'outbox:',
    `  dir: ${path.join(work, 'outbox')}`,
    'delivery: { timeout: 5s, backoff_initial: 100ms, backoff_max: 500ms }',
    'metrics: { listen: false }',
    'inputs:',
    '  cockroachdb:',
    `    urls: [${nodes.urls.join(', ')}]`,
    '    timeout: 2s',
    '    cli: { enabled: false }',
    '  prometheus: { cockroachdb: true }',
    '',
  ].join('\n');
  const cfg = path.join(work, 'agent.yaml');
  fs.writeFileSync(cfg, yaml);
  agent = spawnAgent(buildAgentDist().agentJs, ['--config', cfg]);
}

test('the cluster page shows the statements/s and p99 that three scraped nodes imply', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page).catch(() => signIn(page));
  const name = `dbm-${Date.now()}`;
  const cluster = await createDemoCluster(page.request, name);
  const token = await createTokenVia(page.request, 'demo', {
    name,
    scopes: ['ingest'],
    clusterId: cluster.id,
  });

  // Before any metric: the panels say which input to enable.
  await page.goto(`/demo/clusters/${cluster.id}`);
  await expect(page.getByTestId('db-empty')).toContainText('prometheus');

  if (REAL_AGENT) {
    startRealAgent(token);
    await waitFor(() => nodes.scrapes.every((n) => n >= 4), 60_000, '4 scrapes of every node by the agent');
    await waitFor(
      () => (agent?.logs().filter((l) => l.msg === 'batch delivered').length ?? 0) >= 4,
      30_000,
      'batches delivered',
    );
  } else {
    for (let round = 0; round < 4; round++) {
      await scrapeAndPost(page, token, cluster.id, round);
      await page.waitForTimeout(1000);
    }
  }

  // Σ over nodes 1..3 of (50 + 10 + 5 + 1) × node per second; p99 of the recorded latency distribution.
  const rate = Object.values(STATEMENT_RATES).reduce((a, r) => a + r, 0) * (1 + 2 + 3);
  const p99 = histogramQuantile(0.99, LATENCY_BUCKETS) / 1e6;
  const p50 = histogramQuantile(0.5, LATENCY_BUCKETS) / 1e6;
  expect(rate).toBe(396);

  await page.goto(`/demo/clusters/${cluster.id}?range=15m`);
  const latest = page.getByTestId('db-latest');
  await expect(latest).toBeVisible();
  const figures = async () => {
    const text = await latest.innerText();
    const num = (re: RegExp) => Number(re.exec(text)?.[1]?.replace(/,/g, '') ?? NaN);
    return {
      statements: num(/([\d,.]+) statements\/s/),
      p99: num(/p99 ([\d,.]+) ms/),
      p50: num(/p50 ([\d,.]+) ms/),
    };
  };
  const got = await figures();
  // Readings are stamped when the scrape starts and the counters advance until the node answers: a
  // difference in that latency between two 1 s scrapes moves a rate by about 1 % per 10 ms.
  // A lost or doubled node or type is off by 1/6 or more.
  expect(Math.abs(got.statements - rate)).toBeLessThanOrEqual(rate * 0.03);
  expect(Math.abs(got.p99 - p99)).toBeLessThanOrEqual(0.051);
  expect(Math.abs(got.p50 - p50)).toBeLessThanOrEqual(0.051);

  // Both panels drew lines (no "No data" overlay), statements by type in the legend's order.
  for (const title of ['SQL statements/s', 'Service latency (ms)']) {
    const panel = page.getByRole('region', { name: title });
    await expect(panel.locator('canvas, svg').first()).toBeVisible();
    await expect(panel.getByText('No data in this range')).toHaveCount(0);
  }

  // The view-model behind it, per type: select = 50 × (1 + 2 + 3).
  const view = await page.request.get(
    `/api/trpc/dashboard.clusterView?input=${encodeURIComponent(JSON.stringify({ id: cluster.id, from: Date.now() - 900_000, to: Date.now() }))}`,
    { headers: { 'x-org': 'demo' } },
  );
  expect(view.status(), await view.text()).toBe(200);
  const db = (await view.json()).result.data.db as {
    statements: { name: string; data: [number, number][] }[];
  };
  const want: [string, number][] = [
    ['select', 300],
    ['insert', 60],
    ['update', 30],
    ['delete', 6],
  ];
  expect(db.statements.map((s) => s.name)).toEqual(want.map((w) => w[0]));
  db.statements.forEach((s, i) =>
    expect(Math.abs(s.data.at(-1)![1] - want[i][1])).toBeLessThanOrEqual(want[i][1] * 0.015),
  );
});
