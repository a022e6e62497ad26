/**
 * Issue 11 §1 + §7 against the launched app: an agent is its own principal. Only its credential may claim,
 * lease, post output for and finish its jobs or heartbeat as it; every other token and a session get 403;
 * a revoked credential gets 401 at once; jobs stay in their cluster; long-polls are capped (429 +
 * Retry-After). The credential is issued from Settings → Agents → "Add agent" (shown once) and by
 * `admin agent enroll`, which also converts an existing ingest token.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { BASE_URL, DATA_DIR } from '../../playwright.config';
import { adminTokenFor } from '../../fixtures/agent';
import { signIn } from '../../fixtures/auth';
import { ADMIN, TSX_LOADER, WEB_DIR } from '../../fixtures/launch';

const uid = () => randomBytes(4).toString('hex');
const auth = (t: string) => ({ authorization: `Bearer ${t}` });

test.describe.configure({ mode: 'serial' });

let admin: string;
let x: { id: string; name: string };
let y: { id: string; name: string };
const tok: Record<string, string> = {};
const agentIds: Record<string, string> = {};
let runId = '';

async function trpc<T>(req: APIRequestContext, path: string, data: unknown, token = admin) {
  const res = await req.post(`${BASE_URL}/api/trpc/${path}`, { headers: auth(token), data });
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return ((await res.json()) as { result: { data: T } }).result.data;
}

// Playwright's request, not Node's fetch: the admin CLI (execFileSync) blocks the event loop long enough
// for fetch to reuse a keep-alive socket the server already closed.
async function createCluster(req: APIRequestContext, token: string, name: string) {
  const res = await req.post(`${BASE_URL}/api/v1/clusters`, { headers: auth(token), data: { name } });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as { id: string };
}

const createIngestToken = (req: APIRequestContext, token: string, clusterId: string, name: string) =>
  trpc<{ id: string; token: string }>(req, 'tokens.create', { name, scopes: ['ingest'], clusterId }, token);

async function enroll(req: APIRequestContext, name: string, cluster: string) {
  const r = await trpc<{ agent: { id: string }; token: string }>(req, 'agents.enroll', { name, cluster });
  agentIds[name] = r.agent.id;
  tok[name] = r.token;
}

/** One heartbeat batch through /api/v1/ingest, as the given token, naming `host`. */
async function heartbeat(
  req: APIRequestContext,
  token: string,
  host: string,
  caps: string[],
  cluster?: string,
) {
  const res = await req.post(`${BASE_URL}/api/v1/ingest`, {
    headers: auth(token),
    data: {
      batchId: `hb-${uid()}`,
      ...(cluster ? { cluster } : {}),
      agent: { name: host, version: 'e2e' },
      samples: [
        {
          kind: 'heartbeat',
          ts: Date.now(),
          host,
          version: 'e2e',
          uptime_s: 1,
          capabilities: caps,
          outbox_bytes: 0,
          outbox_pending: 0,
          outbox_evictions: 0,
        },
      ],
    },
  });
  expect(res.status(), await res.text()).toBe(202);
}

async function agentRow(req: APIRequestContext, name: string) {
  const res = await req.get(`${BASE_URL}/api/trpc/agents.list`, { headers: auth(admin) });
  const rows = (await res.json()).result.data as {
    name: string;
    clusterId: string;
    capabilities: string[];
  }[];
  return rows.find((r) => r.name === name)!;
}

test("a plain token can neither take an agent's job nor move the agent by heartbeat", async ({ request }) => {
  const root = adminTokenFor(DATA_DIR, `e2e-legacy-${uid()}`);
  const [l, m] = [`l-${uid()}`, `m-${uid()}`];
  const lid = (await createCluster(request, root, l)).id;
  const mid = (await createCluster(request, root, m)).id;
  // Today's install: the agent registered by heartbeat with a plain ingest token of its cluster.
  const agentTok = (await createIngestToken(request, root, lid, `victim-${uid()}`)).token;
  await heartbeat(request, agentTok, 'victim', ['hey']);
  const w = await request.post(`${BASE_URL}/api/v1/workloads`, {
    headers: auth(root),
    data: { name: `v-${uid()}`, tool: 'hey', params: { concurrency: 1 }, target: 'http://127.0.0.1:9/' },
  });
  expect(w.status(), await w.text()).toBe(200);
  const s = await request.post(
    `${BASE_URL}/api/v1/workloads/${((await w.json()) as { id: string }).id}/runs`,
    {
      headers: auth(root),
      data: { cluster: lid, force: true },
    },
  );
  expect(s.status(), await s.text()).toBe(200);
  // A CI token of the org tries to act as the agent.
  const ci = (
    await trpc<{ token: string }>(
      request,
      'tokens.create',
      { name: `ci-${uid()}`, scopes: ['runs:write'] },
      root,
    )
  ).token;
  const stolen = await request.get(`${BASE_URL}/api/v1/agent/jobs?agent=victim&wait=0`, {
    headers: auth(ci),
  });
  expect(`${stolen.status()} ${await stolen.text()}`).toMatch(/^403 /);
  // An ingest token of another cluster heartbeats under the agent's name.
  const other = (await createIngestToken(request, root, mid, `other-${uid()}`)).token;
  await heartbeat(request, other, 'victim', ['fio']);
  const res = await request.get(`${BASE_URL}/api/trpc/agents.list`, { headers: auth(root) });
  const v = (
    (await res.json()).result.data as { name: string; clusterId: string; capabilities: string[] }[]
  ).find((r) => r.name === 'victim')!;
  expect({ cluster: v.clusterId, caps: v.capabilities }).toEqual({ cluster: lid, caps: ['hey'] });
});

test.describe('enrolled agents', () => {
  test.beforeAll(async ({ playwright }) => {
    test.setTimeout(120_000);
    const req = await playwright.request.newContext();
    admin = adminTokenFor(DATA_DIR, `e2e-principal-${uid()}`);
    for (const k of ['x', 'y'] as const) {
      const name = `${k}-${uid()}`;
      const c = { id: (await createCluster(req, admin, name)).id, name };
      if (k === 'x') x = c;
      else y = c;
    }
    await enroll(req, 'agent-a', x.id);
    await enroll(req, 'agent-b', x.id);
    await enroll(req, 'agent-c', y.id);
    for (const n of ['agent-a', 'agent-b', 'agent-c']) await heartbeat(req, tok[n], n, ['hey']);
    tok.ingest = (await createIngestToken(req, admin, x.id, `ing-${uid()}`)).token;
    tok.ingestY = (await createIngestToken(req, admin, y.id, `ing-${uid()}`)).token;
    for (const scopes of [['runs:write'], ['read'], ['ingest', 'runs:write', 'read', 'admin']])
      tok[scopes.join('+')] = (
        await trpc<{ token: string }>(req, 'tokens.create', { name: `t-${uid()}`, scopes })
      ).token;
    tok.admin = admin;
    const w = await req.post(`${BASE_URL}/api/v1/workloads`, {
      headers: auth(admin),
      data: { name: `hey-${uid()}`, tool: 'hey', params: { concurrency: 1 }, target: 'http://127.0.0.1:9/' },
    });
    expect(w.status(), await w.text()).toBe(200);
    const wid = ((await w.json()) as { id: string }).id;
    const s = await req.post(`${BASE_URL}/api/v1/workloads/${wid}/runs`, {
      headers: auth(admin),
      data: { cluster: x.id, agent: 'agent-b', force: true },
    });
    expect(s.status(), await s.text()).toBe(200);
    runId = ((await s.json()) as { id: string }).id;
    await req.dispose();
  });

  test('non-agent tokens and a session get 403 on every agent job route', async ({ request, page }) => {
    const routes = [
      ['GET', `/api/v1/agent/jobs?agent=agent-b&wait=0`],
      ['POST', `/api/v1/agent/jobs/${runId}/lease`, { agent: 'agent-b' }],
      ['POST', `/api/v1/agent/jobs/${runId}/output`, { agent: 'agent-b', output: 'fake' }],
      ['POST', `/api/v1/agent/jobs/${runId}/finish`, { agent: 'agent-b', status: 'succeeded' }],
    ] as const;
    for (const who of ['ingest', 'runs:write', 'read', 'ingest+runs:write+read+admin', 'admin'])
      for (const [method, url, data] of routes) {
        const res = await request.fetch(`${BASE_URL}${url}`, { method, headers: auth(tok[who]), data });
        expect(`${who} ${method} ${url} → ${res.status()}`).toBe(`${who} ${method} ${url} → 403`);
      }
    await signIn(page);
    for (const [method, url, data] of routes) {
      const res = await page.request.fetch(url, { method, headers: { 'x-org': 'demo' }, data });
      expect(`session ${method} ${url} → ${res.status()}`).toBe(`session ${method} ${url} → 403`);
    }
  });

  test("agent A cannot take agent B's job; B gets it; A cannot lease, post output or finish it", async ({
    request,
  }) => {
    const claimAsB = await request.get(`${BASE_URL}/api/v1/agent/jobs?agent=agent-b&wait=0`, {
      headers: auth(tok['agent-a']),
    });
    expect(claimAsB.status()).toBe(403);
    const own = await request.get(`${BASE_URL}/api/v1/agent/jobs?wait=0`, { headers: auth(tok['agent-a']) });
    expect(own.status()).toBe(200);
    expect((await own.json()).job).toBeNull();
    // Agent C of cluster Y is never offered cluster X's job.
    const c = await request.get(`${BASE_URL}/api/v1/agent/jobs?wait=0`, { headers: auth(tok['agent-c']) });
    expect((await c.json()).job).toBeNull();
    const b = await request.get(`${BASE_URL}/api/v1/agent/jobs?agent=agent-b&wait=0`, {
      headers: auth(tok['agent-b']),
    });
    expect(b.status(), await b.text()).toBe(200);
    expect((await b.json()).job.id).toBe(runId);
    for (const [p, data] of [
      ['lease', {}],
      ['output', { output: 'fake' }],
      ['finish', { status: 'succeeded' }],
    ] as const) {
      const named = await request.post(`${BASE_URL}/api/v1/agent/jobs/${runId}/${p}`, {
        headers: auth(tok['agent-a']),
        data: { ...data, agent: 'agent-b' },
      });
      expect(`${p} naming B: ${named.status()}`).toBe(`${p} naming B: 403`);
      const plain = await request.post(`${BASE_URL}/api/v1/agent/jobs/${runId}/${p}`, {
        headers: auth(tok['agent-a']),
        data,
      });
      expect(`${p} as A: ${plain.status()}`).toBe(`${p} as A: 409`);
    }
    const fin = await request.post(`${BASE_URL}/api/v1/agent/jobs/${runId}/finish`, {
      headers: auth(tok['agent-b']),
      data: { status: 'failed', exitCode: 1 },
    });
    expect(fin.status(), await fin.text()).toBe(200);
  });

  test("another token's heartbeat under an agent's name neither changes it nor moves its cluster", async ({
    request,
  }) => {
    await heartbeat(request, tok.ingestY, 'agent-b', ['fio', 'wrk']);
    await heartbeat(request, tok.ingest, 'agent-b', ['fio']);
    await heartbeat(request, tok['agent-a'], 'agent-b', ['hey', 'wrk']);
    const b = await agentRow(request, 'agent-b');
    expect(b.clusterId).toBe(x.id);
    expect(b.capabilities).toEqual(['hey']);
    expect((await agentRow(request, 'agent-a')).capabilities).toEqual(['hey', 'wrk']);
  });

  test('a third concurrent long-poll of one agent gets 429 with Retry-After', async ({ playwright }) => {
    const ctx = await playwright.request.newContext();
    const poll = () => ctx.get(`${BASE_URL}/api/v1/agent/jobs?wait=3`, { headers: auth(tok['agent-c']) });
    const held = [poll(), poll()];
    await new Promise((r) => setTimeout(r, 500));
    const third = await poll();
    expect(third.status()).toBe(429);
    expect(Number(third.headers()['retry-after'])).toBeGreaterThan(0);
    for (const r of await Promise.all(held)) expect(r.status()).toBe(200);
    await ctx.dispose();
  });

  test('revoking an agent credential answers 401 on its very next request', async ({ request }) => {
    await trpc(request, 'agents.revoke', { id: agentIds['agent-a'] });
    const res = await request.get(`${BASE_URL}/api/v1/agent/jobs?wait=0`, { headers: auth(tok['agent-a']) });
    expect(res.status()).toBe(401);
  });

  test('admin agent enroll --from-token turns an ingest token into the agent credential', async ({
    request,
  }) => {
    const legacy = (await createIngestToken(request, admin, y.id, `legacy-${uid()}`)).token;
    const before = await request.get(`${BASE_URL}/api/v1/agent/jobs?wait=0`, { headers: auth(legacy) });
    expect(before.status()).toBe(403);
    execFileSync(
      process.execPath,
      [
        ...TSX_LOADER,
        ADMIN,
        'agent',
        'enroll',
        '--org',
        'demo',
        '--cluster',
        y.name,
        '--name',
        'agent-legacy',
        '--from-token',
        legacy,
      ],
      { cwd: WEB_DIR, env: { ...process.env, DATA_DIR: DATA_DIR }, encoding: 'utf8' },
    );
    const after = await request.get(`${BASE_URL}/api/v1/agent/jobs?agent=agent-legacy&wait=0`, {
      headers: auth(legacy),
    });
    expect(after.status(), await after.text()).toBe(200);
  });

  test('Settings → Agents → Add agent shows the credential once, with the config; Revoke works', async ({
    page,
    request,
  }) => {
    await signIn(page);
    await page.goto('/demo/settings/agents');
    await page.getByRole('button', { name: 'Add agent' }).click();
    const form = page.getByRole('form', { name: 'Add agent' });
    const name = `ui-${uid()}`;
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Cluster').selectOption({ label: x.name });
    await form.getByRole('button', { name: 'Enroll' }).click();
    const token = (await page.getByTestId('new-agent-token').textContent())!.trim();
    expect(token).toMatch(/^cs_/);
    await expect(page.getByTestId('agent-config')).toContainText(`host: ${name}`);
    const ok = await request.get(`${BASE_URL}/api/v1/agent/jobs?wait=0`, { headers: auth(token) });
    expect(ok.status(), await ok.text()).toBe(200);
    // Not listed among API tokens.
    await page.goto('/demo/settings/tokens');
    await expect(page.getByRole('cell', { name: `agent ${name}` })).toHaveCount(0);
    // Shown once: a reload of the agents page has only the prefix.
    await page.goto('/demo/settings/agents');
    await expect(page.getByTestId('new-agent-token')).toHaveCount(0);
    const row = page.getByRole('row').filter({ hasText: name });
    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Revoke' }).click();
    await expect(row.getByText('revoked')).toBeVisible();
    const gone = await request.get(`${BASE_URL}/api/v1/agent/jobs?wait=0`, { headers: auth(token) });
    expect(gone.status()).toBe(401);
  });
});
