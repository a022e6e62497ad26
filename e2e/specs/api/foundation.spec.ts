import { execFileSync } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { DATA_DIR } from '../../playwright.config';
import { ADMIN, TSX_LOADER, WEB_DIR } from '../../fixtures/launch';

function admin(...args: string[]): { out: string; code: number; err: string } {
  try {
    const out = execFileSync(process.execPath, [...TSX_LOADER, ADMIN, ...args], {
      cwd: WEB_DIR,
      env: { ...process.env, DATA_DIR },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { out, code: 0, err: '' };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { out: err.stdout, code: err.status, err: err.stderr };
  }
}

test('health reports both dependencies and the version', async ({ request }) => {
  const res = await request.get('/api/health');
  expect(res.status()).toBe(200);
  expect(await res.json()).toEqual({
    status: 'ok',
    postgres: 'ok',
    clickhouse: 'ok',
    version: expect.any(String),
  });
});

test('the OpenAPI spec documents the REST API with bearer auth', async ({ request }) => {
  const doc = await (await request.get('/api/v1/openapi.json')).json();
  expect(doc.openapi).toMatch(/^3\./);
  expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  expect(Object.keys(doc.paths)).toContain('/clusters');
});

test('interactive API docs are served offline', async ({ request }) => {
  const page = await request.get('/api/docs');
  expect(page.status()).toBe(200);
  expect(await page.text()).toContain('/api/docs/swagger-init.js');
  // The init script (no inline script under the CSP) points Swagger UI at the spec.
  expect(await (await request.get('/api/docs/swagger-init.js')).text()).toContain('/api/v1/openapi.json');
  const js = await request.get('/api/docs/swagger-ui-bundle.js');
  expect(js.status()).toBe(200);
  expect((await js.body()).length).toBeGreaterThan(100_000);
  expect((await request.get('/api/docs/..%2Fpackage.json')).status()).toBe(404);
});

test('admin CLI: token create prints a working token last; bad input is a clear error', async ({
  request,
}) => {
  const created = admin('token', 'create', '--org', 'demo', '--name', 'e2e-cli', '--scopes', 'read');
  expect(created.code).toBe(0);
  const token = created.out.trim().split('\n').at(-1)!;
  expect(token).toMatch(/^cs_/);
  const ok = await request.get('/api/v1/clusters', { headers: { authorization: `Bearer ${token}` } });
  expect(ok.status()).toBe(200);

  const badScope = admin('token', 'create', '--org', 'demo', '--name', 'x', '--scopes', 'root');
  expect(badScope.code).toBe(2);
  expect(badScope.err).toMatch(/--scopes/);
  const noOrg = admin('token', 'create', '--org', 'nope', '--name', 'x', '--scopes', 'read');
  expect(noOrg.err).toMatch(/no organization with slug 'nope'/);
  expect(admin('--help').out).toMatch(/token create --org/);
});

test('REST auth: missing, malformed, unknown and revoked tokens get 401; missing scope gets 403', async ({
  request,
}) => {
  expect((await request.get('/api/v1/clusters')).status()).toBe(401);
  const bad = await request.get('/api/v1/clusters', { headers: { authorization: 'Bearer nope' } });
  expect(bad.status()).toBe(401);
  const unknown = await request.get('/api/v1/clusters', {
    headers: { authorization: 'Bearer cs_abcdefgh_zzzz' },
  });
  expect(await unknown.json()).toMatchObject({ message: 'unknown API token' });

  const token = admin('token', 'create', '--org', 'demo', '--name', 'e2e-scope', '--scopes', 'read')
    .out.trim()
    .split('\n')
    .at(-1)!;
  const auth = { authorization: `Bearer ${token}` };
  const forbidden = await request.post('/api/v1/clusters', { headers: auth, data: { name: 'nope' } });
  expect(forbidden.status()).toBe(403);

  const adminTok = admin('token', 'create', '--org', 'demo', '--name', 'e2e-admin', '--scopes', 'admin')
    .out.trim()
    .split('\n')
    .at(-1)!;
  const rows = await request.get('/api/trpc/tokens.list', {
    headers: { authorization: `Bearer ${adminTok}` },
  });
  const id = (await rows.json()).result.data.find((t: { name: string }) => t.name === 'e2e-scope').id;
  const revoke = await request.post('/api/trpc/tokens.revoke', {
    headers: { authorization: `Bearer ${adminTok}` },
    data: { id },
  });
  expect(revoke.status()).toBe(200);
  const after = await request.get('/api/v1/clusters', { headers: auth });
  expect(after.status()).toBe(401);
  expect(await after.json()).toMatchObject({ message: 'API token has been revoked' });
});
