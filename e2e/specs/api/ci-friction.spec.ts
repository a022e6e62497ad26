import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { cliToken } from '../../fixtures/launch';
import { bearer, uid } from '../../fixtures/ux';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../packages/bench/fixtures/${name}`, import.meta.url), 'utf8');

let ci: string;
let admin: string;
test.beforeAll(() => {
  ci = cliToken('runs:write', 'e2e-ci-friction');
  admin = cliToken('admin', 'e2e-ci-friction');
});

test('POST /runs/{id}/output takes the raw output as text/plain (curl --data-binary), documented in OpenAPI', async ({
  request,
}) => {
  const create = await request.post('/api/v1/runs', {
    headers: bearer(ci),
    data: { cluster: 'demo-cockroach', workload: `plain-${uid()}`, tool: 'pgbench' },
  });
  expect(create.status(), await create.text()).toBe(200);
  const { id } = await create.json();
  const raw = fixture('pgbench_tpcb.txt');
  const res = await request.post(`/api/v1/runs/${id}/output?tool=pgbench`, {
    headers: { ...bearer(ci), 'content-type': 'text/plain' },
    data: Buffer.from(raw),
  });
  expect(res.status(), await res.text()).toBe(200);
  const out = await res.json();
  expect(out.summary.map((m: { name: string }) => m.name)).toContain('tps');
  const run = await (await request.get(`/api/v1/runs/${id}`, { headers: bearer(ci) })).json();
  expect(run.hasRawOutput).toBe(true);
  const stored = await request.get(`/api/v1/export/runs/${id}/output`, { headers: bearer(ci) });
  expect(await stored.text()).toBe(raw);

  // Without ?tool the parser detects it; an unknown tool is a 400 naming the field; still never a 5xx.
  const detected = await request.post(`/api/v1/runs/${id}/output`, {
    headers: { ...bearer(ci), 'content-type': 'text/plain; charset=utf-8' },
    data: Buffer.from(raw),
  });
  expect(detected.status(), await detected.text()).toBe(200);
  const badTool = await request.post(`/api/v1/runs/${id}/output?tool=nmap`, {
    headers: { ...bearer(ci), 'content-type': 'text/plain' },
    data: Buffer.from(raw),
  });
  expect(badTool.status()).toBe(400);
  expect(await badTool.text()).toContain('tool');

  const doc = await (await request.get('/api/v1/openapi.json')).json();
  const op = doc.paths['/runs/{id}/output'].post;
  expect(Object.keys(op.requestBody.content)).toEqual(
    expect.arrayContaining(['application/json', 'text/plain']),
  );
  expect(op.parameters.map((p: { name: string }) => p.name)).toContain('tool');
});

test('a CI token may name a new cluster: created and audited; with the org setting off, the 404 says how', async ({
  request,
}) => {
  const name = `ci-auto-${uid()}`;
  const res = await request.post('/api/v1/runs', {
    headers: bearer(ci),
    data: { cluster: name, workload: `auto-${uid()}`, tool: 'wrk' },
  });
  expect(res.status(), await res.text()).toBe(200);
  const clusters = await (await request.get('/api/v1/clusters', { headers: bearer(admin) })).json();
  expect(clusters.map((c: { name: string }) => c.name)).toContain(name);

  const set = (autoCreate: boolean) =>
    request.post('/api/trpc/clusters.setSettings', { headers: bearer(admin), data: { autoCreate } });
  // A CI token may not change the setting.
  expect(
    (
      await request.post('/api/trpc/clusters.setSettings', {
        headers: bearer(ci),
        data: { autoCreate: false },
      })
    ).status(),
  ).toBe(403);
  expect((await set(false)).status()).toBe(200);
  try {
    const off = await request.post('/api/v1/runs', {
      headers: bearer(ci),
      data: { cluster: `${name}-off`, workload: `auto-${uid()}`, tool: 'wrk' },
    });
    expect(off.status()).toBe(404);
    const body = await off.text();
    expect(body).toContain(`cluster '${name}-off' not found`);
    expect(body).toContain('Settings → Clusters');
    expect(body).toContain('POST /api/v1/clusters');
  } finally {
    expect((await set(true)).status()).toBe(200);
  }
});

test('/api/docs links back to the app, follows the theme, and /favicon.ico exists', async ({
  page,
  request,
}) => {
  const ico = await request.get('/favicon.ico');
  expect(ico.status()).toBe(200);
  // An ICO file (header 00 00 01 00) holding the app icon.
  expect([...(await ico.body()).subarray(0, 4)]).toEqual([0, 0, 1, 0]);
  await page.addInitScript(() => localStorage.setItem('theme', 'dark'));
  await page.goto('/api/docs');
  await expect(page.getByRole('link', { name: /Back to Clusterscope/ })).toHaveAttribute('href', '/');
  expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
  await expect(page.locator('link[rel="icon"]')).toHaveAttribute('href', '/icon.svg');
  await expect(page.locator('.swagger-ui').first()).toBeVisible();
});
