import { randomBytes } from 'node:crypto';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { createCliTarget } from '../../fixtures/demo-org';

const uid = () => randomBytes(4).toString('hex');
const LEAKS = /prisma|postgres|invalid byte|0x00|\bat \w+ \(|node_modules|stack|SELECT|INSERT|\.ts:\d+/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let ci: string;
let cluster: string;

test.beforeAll(async ({ request }) => {
  test.setTimeout(180_000); // two admin CLI runs (tsx start-up) on a busy machine
  ({ ci, cluster } = await createCliTarget(request, 'err'));
});

// PostgreSQL rejects a NUL character in text; the API refuses it first, naming the field.
// (The 500 {message, id} path itself is covered with an injected fault in packages/api/src/errors.int.test.ts.)
const hostileRun = () => ({
  cluster,
  workload: `err-${uid()}`,
  tool: 'pgbench',
  git: { branch: 'main\u0000x' },
});

/** Posts the hostile run to `url` with the CI token; expects 400 without internals and returns the body. */
async function postHostile(request: APIRequestContext, url: string): Promise<string> {
  const res = await request.post(url, { headers: { authorization: `Bearer ${ci}` }, data: hostileRun() });
  const text = await res.text();
  expect(res.status(), text).toBe(400);
  expect(text).not.toMatch(LEAKS);
  return text;
}

test('REST: a NUL character answers 400 naming the field, nothing internal', async ({ request }) => {
  const text = await postHostile(request, '/api/v1/runs');
  expect(JSON.parse(text).issues[0].path).toEqual(['git', 'branch']);
});

test('tRPC and the export routes: the same 400, with the field named', async ({ request }) => {
  const text = await postHostile(request, '/api/trpc/runs.create');
  expect(JSON.parse(text).error.message).toMatch(/^git\.branch: may not contain a NUL/);

  const out = await request.get('/api/v1/export/runs/%00/output', {
    headers: { authorization: `Bearer ${ci}` },
  });
  expect(out.status(), await out.text()).toBe(400);
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
