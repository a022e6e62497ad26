import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { cliToken as createCliToken } from '../../fixtures/launch';

const uid = () => randomBytes(4).toString('hex');
const LEAKS = /prisma|postgres|invalid byte|0x00|\bat \w+ \(|node_modules|stack|SELECT|INSERT|\.ts:\d+/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const cliToken = (scopes: string) => createCliToken(scopes, 'e2e-err');

let admin: string;
let ci: string;
let cluster: string;

test.beforeAll(async ({ request }) => {
  test.setTimeout(180_000); // two admin CLI runs (tsx start-up) on a busy machine
  admin = cliToken('admin');
  ci = cliToken('runs:write');
  cluster = `err-${uid()}`;
  const res = await request.post('/api/v1/clusters', {
    headers: { authorization: `Bearer ${admin}` },
    data: { name: cluster },
  });
  expect(res.status(), await res.text()).toBe(200);
});

// PostgreSQL rejects a NUL character in text: the database error is real, and must stay in the log.
const hostileRun = () => ({
  cluster,
  workload: `err-${uid()}`,
  tool: 'pgbench',
  git: { branch: 'main\u0000x' },
});

test('REST: an unexpected error answers 500 {message:"internal error", id} and nothing internal', async ({
  request,
}) => {
  const res = await request.post('/api/v1/runs', {
    headers: { authorization: `Bearer ${ci}` },
    data: hostileRun(),
  });
  const text = await res.text();
  expect(res.status(), text).toBe(500);
  const body = JSON.parse(text);
  expect(body.message).toBe('internal error');
  expect(body.id).toMatch(UUID);
  expect(text).not.toMatch(LEAKS);
});

test('tRPC: the same error carries only the id', async ({ request }) => {
  const res = await request.post('/api/trpc/runs.create', {
    headers: { authorization: `Bearer ${ci}` },
    data: hostileRun(),
  });
  const text = await res.text();
  expect(res.status(), text).toBe(500);
  const body = JSON.parse(text);
  expect(body.error.message).toBe('internal error');
  expect(body.error.data.id).toMatch(UUID);
  expect(text).not.toMatch(LEAKS);
});

test('a date out of range never leaks database text (4xx, or 500 with an id)', async ({ request }) => {
  const res = await request.post('/api/v1/runs', {
    headers: { authorization: `Bearer ${ci}` },
    data: { cluster, workload: `err-${uid()}`, tool: 'pgbench', startedAt: '0000-01-01T00:00:00Z' },
  });
  const text = await res.text();
  expect(text).not.toMatch(LEAKS);
  if (res.status() >= 500) {
    expect(JSON.parse(text).message).toBe('internal error');
    expect(JSON.parse(text).id).toMatch(UUID);
  } else expect(res.status()).toBe(400);
});
