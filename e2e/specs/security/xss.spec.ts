import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { DATA_DIR } from '../../playwright.config';
import { ADMIN, TSX_LOADER, WEB_DIR } from '../../fixtures/launch';
import { signIn } from '../../fixtures/auth';

/**
 * Stored XSS: hostile strings in every field a user, CI token or agent controls (cluster name, labels, git
 * branch and sha, workload and metric names, units, node address, locality, build tag, agent and token names)
 * are rendered on every page; the charts are hovered point by point. No script may run: no dialog opens and
 * the marker global `window.__xss` stays unset.
 */

const DATA = process.env.E2E_DATA_DIR ?? DATA_DIR;
const ORG = 'demo';
const uid = () => randomBytes(4).toString('hex');
const auth = (t: string) => ({ authorization: `Bearer ${t}` });

const IMG = '<img src=x onerror="window.__xss=1">';
const SVG = '"><svg onload=alert(1)>';
const SCRIPT = '</script><script>window.__xss=1</script>';
const SVELTE = '{@html "<img src=x onerror=window.__xss=1>"}';

function cliToken(scopes: string): string {
  const out = execFileSync(
    process.execPath,
    [...TSX_LOADER, ADMIN, 'token', 'create', '--org', ORG, '--name', `e2e-xss-${uid()}`, '--scopes', scopes],
    { cwd: WEB_DIR, env: { ...process.env, DATA_DIR: DATA }, encoding: 'utf8' },
  );
  return out.trim().split('\n').pop()!;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of the REST API
async function ok(res: Awaited<ReturnType<APIRequestContext['get']>>): Promise<any> {
  expect(res.status(), await res.text()).toBeLessThan(300);
  return res.json();
}

const node = (ts: number, node_id: number) => ({
  kind: 'node_status', ts, node_id, address: `${IMG}:${node_id}`, sql_address: SVG, locality: `region=${SVG},zone=${SCRIPT}`,
  build: SVG, liveness: 'LIVE', is_live: true, is_available: true, replicas: 10, replicas_leaders: 3,
  replicas_leaseholders: 3, ranges: 10, ranges_unavailable: 0, ranges_underreplicated: 0, live_bytes: 1, key_bytes: 1,
  value_bytes: 1, intent_bytes: 0, system_bytes: 0, capacity: 100, capacity_available: 50, capacity_used: 50,
}); // prettier-ignore

const ids = { cluster: '', workload: '', runs: [] as string[] };

test.beforeAll(async ({ request }) => {
  test.setTimeout(120_000);
  const admin = cliToken('admin');
  const cluster = await ok(
    await request.post('/api/v1/clusters', {
      headers: auth(admin),
      data: { name: `${IMG} ${uid()}`, description: SVG },
    }),
  );
  ids.cluster = cluster.id;
  await ok(
    await request.post('/api/trpc/tokens.create', {
      headers: auth(admin),
      data: { name: `${SVG} ${uid()}`, scopes: ['read'], clusterId: cluster.id },
    }),
  );

  // Agent data: node status with hostile address/locality/build over the last minutes (charts + tables).
  const ingest = cliToken('ingest');
  const now = Date.now();
  const samples = [];
  for (let i = 10; i >= 0; i--) for (const n of [1, 2]) samples.push(node(now - i * 30_000, n));
  const batch = { batchId: `xss-${uid()}`, cluster: cluster.id, samples };
  expect((await request.post('/api/v1/ingest', { headers: auth(ingest), data: batch })).status()).toBe(202);
  // An agent named by the batch (agents may be registered differently; this is only more hostile data).
  await request.post('/api/v1/ingest', {
    headers: auth(ingest),
    data: {
      batchId: `xss-${uid()}`,
      cluster: cluster.id,
      agent: { name: `${IMG}-${uid()}`, version: SVG },
      samples: [{ kind: 'heartbeat', ts: now, host: IMG, version: SVG, uptime_s: 1, capabilities: [SVG] }],
    },
  });

  // CI data: three succeeded runs of a hostile workload, branch, sha, labels, metric name and unit.
  const ci = cliToken('runs:write');
  const workload = `${SVG} ${uid()}`;
  for (let i = 0; i < 3; i++) {
    const run = await ok(
      await request.post('/api/v1/runs', {
        headers: auth(ci),
        data: {
          cluster: cluster.id,
          workload,
          tool: 'pgbench',
          git: { repo: SCRIPT, branch: IMG, sha: SVG },
          labels: { [IMG.slice(0, 60)]: SCRIPT, env: SVELTE },
          params: { [IMG]: SVG, nested: { deep: SCRIPT } },
          startedAt: new Date(now - (3 - i) * 3_600_000).toISOString(),
        },
      }),
    );
    ids.runs.push(run.id);
    await ok(
      await request.post(`/api/v1/runs/${run.id}/samples`, {
        headers: auth(ci),
        data: {
          samples: Array.from({ length: 10 }, (_, s) => ({
            elapsed_s: s + 1,
            values: { tps: 100 + s + i, [`x${IMG}`]: s },
          })),
        },
      }),
    );
    await ok(
      await request.post(`/api/v1/runs/${run.id}/results`, {
        headers: auth(ci),
        data: {
          metrics: [
            { name: 'tps', value: 100 + i },
            { name: `m${SVG}`, value: 5 + i, unit: IMG.slice(0, 32), direction: 'higher' },
          ],
        },
      }),
    );
    await ok(
      await request.post(`/api/v1/runs/${run.id}/finish`, {
        headers: auth(ci),
        data: {
          status: 'succeeded',
          error: SCRIPT,
          finishedAt: new Date(now - (3 - i) * 3_600_000 + 60_000).toISOString(),
        },
      }),
    );
  }
  ids.workload = (
    await ok(await request.get(`/api/v1/runs/${ids.runs[0]}`, { headers: auth(ci) }))
  ).workloadId;
});

/** Moves the mouse over every chart: a coarse grid, then every drawn point of the line colours. */
async function hoverCharts(page: Page) {
  const canvases = page.locator('[_echarts_instance_] canvas');
  const n = await canvases.count();
  for (let i = 0; i < n; i++) {
    const c = canvases.nth(i);
    await c.scrollIntoViewIfNeeded();
    const box = await c.boundingBox();
    if (!box || box.width < 20 || box.height < 20) continue;
    // Pixels of drawn series (any saturated colour), one per 8 px column: hovering them hits the item tooltips.
    const pts = await c.evaluate((el) => {
      const cv = el as HTMLCanvasElement;
      const ctx = cv.getContext('2d');
      if (!ctx) return [];
      const dpr = cv.width / cv.getBoundingClientRect().width;
      const d = ctx.getImageData(0, 0, cv.width, cv.height).data;
      const out: [number, number][] = [];
      const step = Math.max(1, Math.round(8 * dpr));
      for (let x = 0; x < cv.width; x += step)
        for (let y = 0; y < cv.height; y++) {
          const k = (y * cv.width + x) * 4;
          const [r, g, b, a] = [d[k], d[k + 1], d[k + 2], d[k + 3]];
          if (a > 200 && Math.max(r, g, b) - Math.min(r, g, b) > 90) {
            out.push([x / dpr, y / dpr]);
            break;
          }
        }
      return out;
    });
    // At most 40 of them, evenly spread (a busy 2-core machine makes every move slow), then a coarse grid.
    const every = Math.max(1, Math.ceil(pts.length / 40));
    for (const [x, y] of pts.filter((_, k) => k % every === 0)) await page.mouse.move(box.x + x, box.y + y);
    for (let fy = 0.2; fy < 0.9; fy += 0.3)
      for (let fx = 0.05; fx < 1; fx += 0.12)
        await page.mouse.move(box.x + box.width * fx, box.y + box.height * fy);
  }
  await page.mouse.move(0, 0);
}

async function visit(page: Page, path: string, dialogs: string[]) {
  await page.goto(path);
  await page.waitForLoadState('load');
  await expect(page.locator('main, body').first()).toBeVisible();
  // Charts load ECharts lazily; give them a moment to draw before hovering.
  await page.waitForTimeout(800);
  await hoverCharts(page);
  const marker = await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss);
  expect({ path, marker, dialogs }).toEqual({ path, marker: undefined, dialogs: [] });
}

test('hostile strings from users, CI and agents never run as script on any page', async ({ page }) => {
  test.setTimeout(420_000);
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  await signIn(page);
  const [r1, r2] = ids.runs;
  const pages = [
    `/${ORG}/clusters`,
    `/${ORG}/clusters/${ids.cluster}`,
    `/${ORG}/clusters/${ids.cluster}/nodes/1`,
    `/${ORG}/oncall`,
    `/${ORG}/runs`,
    `/${ORG}/runs/${r1}`,
    `/${ORG}/compare?runs=${r1},${r2}`,
    `/${ORG}/workloads`,
    `/${ORG}/workloads/${ids.workload}`,
    `/${ORG}/settings/clusters`,
    `/${ORG}/settings/tokens`,
    `/${ORG}/settings/agents`,
    `/${ORG}/settings/members`,
  ];
  for (const path of pages) await visit(page, path, dialogs);

  // The history chart's tooltip was reached and shows the branch as text (escaped, not an element).
  await page.goto(`/${ORG}/workloads/${ids.workload}`);
  await page.waitForTimeout(800);
  await hoverCharts(page);
  const shown = await page.evaluate(() =>
    Array.from(document.querySelectorAll('[_echarts_instance_] div')).some((d) =>
      d.textContent?.includes('onerror="window.__xss=1"'),
    ),
  );
  expect(shown).toBe(true);
});
