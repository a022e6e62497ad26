import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { expect, test, type APIRequestContext, type APIResponse } from '@playwright/test';
import { cliToken as createCliToken } from '../../fixtures/launch';

/**
 * Every REST route of /api/v1/openapi.json (plus the /api/v1/export downloads) gets hostile values for each
 * path/query parameter and body field, generated from the route's schema: no answer may be a 5xx or carry
 * database/stack text, and /api/health stays ok. Named cases pin the date range, JSON depth and raw window.
 */

const uid = () => randomBytes(4).toString('hex');
const auth = (t: string) => ({ authorization: `Bearer ${t}` });
const HOUR = 3_600_000;
/** What must never reach a client. */
const LEAK =
  /prisma|sqlstate|invalid input syntax|violates .* constraint|DB::Exception|"stack"|\bat \S+ \(\S+:\d+:\d+\)|Maximum call stack/i;

const cliToken = (scopes: string) => createCliToken(scopes, 'e2e-rest-fuzz');

type TSchema = {
  type?: string | string[];
  properties?: Record<string, TSchema>;
  items?: TSchema;
  enum?: unknown[];
  anyOf?: TSchema[];
  oneOf?: TSchema[];
  allOf?: TSchema[];
  additionalProperties?: boolean | TSchema;
  $ref?: string;
};
type TParam = { name: string; in: 'path' | 'query' | 'header'; schema?: TSchema };
type TOp = { method: string; path: string; params: TParam[]; body?: TSchema };

/** A value nested `n` arrays deep, as JSON text (never built as an object: no recursion anywhere). */
const deepJson = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

const hostileString = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '0000-01-01T00:00:00Z',
      '0000-01-01',
      '9999-12-31T23:59:59Z',
      '275760-09-13T00:00:00Z',
      '-62167219200000',
      '99999999999999999999',
      '1e400',
      'NaN',
      '-1',
      '0',
      'raw',
      "' OR 1=1--",
      '"; DROP TABLE runs; --',
      '{org_id:String}',
      '../../../../etc/passwd',
      '%00',
      '\u0000',
      '\ud800',
      '<img src=x onerror=alert(1)>',
      'a'.repeat(5000),
      'x,'.repeat(300),
      '__proto__',
      'constructor',
    ),
  },
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  fc.constantFrom(
    -1,
    0,
    -0,
    1e308,
    -1e308,
    2 ** 53 + 1,
    1.5,
    -62167219200000,
    10_413_792_000_000,
    true,
    null,
  ),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant({ __proto__: { admin: true } }),
);

/** Resolves `$ref`s against the document's components. */
function deref(doc: { components?: { schemas?: Record<string, TSchema> } }, s: TSchema | undefined): TSchema {
  let cur = s ?? {};
  for (let i = 0; i < 10 && cur.$ref; i++) cur = doc.components?.schemas?.[cur.$ref.split('/').pop()!] ?? {};
  return cur;
}

/** A plausible value for a schema (so that the other fields pass and the hostile one is reached). */
function plausible(s: TSchema, known: Record<string, string>, name = '', path = ''): unknown {
  if (name === 'id') return path.startsWith('/clusters/') ? known.cluster : known.run;
  if (known[name]) return known[name];
  if (s.enum?.length) return s.enum[0];
  const alt = s.anyOf ?? s.oneOf;
  if (alt?.length) return plausible(alt[0], known, name);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'object' || s.properties)
    return Object.fromEntries(
      Object.entries(s.properties ?? {}).map(([k, v]) => [k, plausible(v, known, k)]),
    );
  if (type === 'array') return [plausible(s.items ?? {}, known)];
  if (type === 'integer' || type === 'number')
    return name === 'from' ? Date.now() - HOUR : name === 'to' ? Date.now() : 1;
  if (type === 'boolean') return false;
  return 'x';
}

let admin: string;
let ops: TOp[] = [];
const known: Record<string, string> = {};

test.beforeAll(async ({ request }) => {
  test.setTimeout(120_000);
  admin = cliToken('admin');
  const c = await request.post('/api/v1/clusters', {
    headers: auth(admin),
    data: { name: `rest-fuzz-${uid()}` },
  });
  expect(c.status(), await c.text()).toBe(200);
  const cluster = (await c.json()).id as string;
  const runIds: string[] = [];
  for (let i = 0; i < 2; i++) {
    const r = await request.post('/api/v1/runs', {
      headers: auth(admin),
      data: { cluster, workload: `rest-fuzz-${uid()}`, tool: 'pgbench', git: { branch: 'main' } },
    });
    expect(r.status(), await r.text()).toBe(200);
    runIds.push((await r.json()).id);
  }
  Object.assign(known, { cluster, run: runIds[0], runs: runIds.join(','), baseline: runIds[1] });

  const res = await request.get('/api/v1/openapi.json');
  expect(res.status()).toBe(200);
  const doc = await res.json();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>))
    for (const [method, raw] of Object.entries(item)) {
      const op = raw as {
        parameters?: TParam[];
        requestBody?: { content?: Record<string, { schema?: TSchema }> };
      };
      const body = op.requestBody?.content?.['application/json']?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).map((p) => ({ ...p, schema: deref(doc, p.schema) })),
        body: body ? deref(doc, body) : undefined,
      });
    }
  // Downloads served outside the OpenAPI document.
  for (const path of ['/export/runs', '/export/runs/{id}', '/export/runs/{id}/output', '/export/compare'])
    ops.push({
      method: 'GET',
      path,
      params: [
        ...(path.includes('{id}') ? [{ name: 'id', in: 'path' as const }] : []),
        { name: 'format', in: 'query' },
        { name: 'from', in: 'query' },
        { name: 'to', in: 'query' },
        { name: 'runs', in: 'query' },
        { name: 'limit', in: 'query' },
      ],
    });
  // Never the agent long-poll with a real wait (it would hold the request); everything else as listed.
  ops = ops.filter((o) => !(o.method === 'GET' && o.path === '/agent/jobs'));
  expect(ops.length).toBeGreaterThan(20);
});

/** What String() makes of a value, or its JSON where String() throws (`[{ toString: 0 }]`). */
const asText = (v: unknown) => {
  try {
    return String(v);
  } catch {
    return JSON.stringify(v);
  }
};

/** encodeURIComponent that also takes lone surrogates (as U+FFFD, what a client would send). */
const encodePath = (s: string) =>
  encodeURIComponent(
    s.replace(/[\ud800-\udfff]/g, (c, i: number) => {
      const pair = /[\ud800-\udbff][\udc00-\udfff]/.test(s.slice(i - 1, i + 1) + s.slice(i, i + 2));
      return pair ? c : '\ufffd';
    }),
  );

async function send(
  request: APIRequestContext,
  op: TOp,
  values: Record<string, unknown>,
  body: unknown,
): Promise<APIResponse> {
  let path = op.path;
  const query = new URLSearchParams();
  for (const p of op.params) {
    const v = values[p.name];
    if (v === undefined) continue;
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodePath(s || 'x'));
    else if (p.in === 'query') query.set(p.name, s);
  }
  path = path.replace(/\{(\w+)\}/g, () => known.run);
  const url = `/api/v1${path}${query.size ? `?${query}` : ''}`;
  const headers = { ...auth(admin), 'content-type': 'application/json' };
  const data = typeof body === 'string' ? body : JSON.stringify(body ?? {});
  return request.fetch(url, {
    method: op.method,
    headers,
    data: op.method === 'GET' ? undefined : data,
    timeout: 15_000,
  });
}

async function expectNo5xx(res: APIResponse, what: string) {
  const text = await res.text();
  expect(res.status(), `${what} -> ${res.status()} ${text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status() >= 400) expect(text, what).not.toMatch(LEAK);
}

test('hostile parameters and bodies on every REST route: no 5xx, no internals; health stays ok', async ({
  request,
}) => {
  test.setTimeout(90_000);
  // Each case: one route, every parameter either plausible or hostile, and a body with hostile fields.
  const arb = fc.record({
    op: fc.constantFrom(...ops),
    seed: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
    values: fc.array(hostileValue, { minLength: 12, maxLength: 12 }),
    bodyKind: fc.constantFrom('fields', 'fields', 'json', 'deep', 'text'),
    depth: fc.constantFrom(17, 100, 1000, 2000, 2500, 5000),
  });
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(arb, async ({ op, seed, values, bodyKind, depth }) => {
      const params: Record<string, unknown> = {};
      op.params.forEach((p, i) => {
        params[p.name] = seed[i % seed.length]
          ? values[i % values.length]
          : plausible(p.schema ?? {}, known, p.name, op.path);
      });
      let body: unknown = undefined;
      if (op.method !== 'GET') {
        const props = Object.keys(op.body?.properties ?? {});
        const base = plausible(op.body ?? {}, known) as Record<string, unknown>;
        if (bodyKind === 'fields')
          props.forEach((k, i) => {
            if (seed[(i + 3) % seed.length]) base[k] = values[(i + 5) % values.length];
          });
        // 'deep': one field (params first, where free-form JSON is allowed) nested `depth` objects deep.
        const deepKey = props.includes('params') ? 'params' : (props[seed.indexOf(true)] ?? 'x');
        body =
          bodyKind === 'json'
            ? values[0]
            : bodyKind === 'deep'
              ? JSON.stringify({ ...base, [deepKey]: '__DEEP__' }).replace('"__DEEP__"', deepJson(depth))
              : bodyKind === 'text'
                ? asText(values[1])
                : base;
      }
      const res = await send(request, op, params, body);
      statuses.set(res.status(), (statuses.get(res.status()) ?? 0) + 1);
      await expectNo5xx(res, `${op.method} ${op.path} ${JSON.stringify(params).slice(0, 200)}`);
    }),
    {
      numRuns: 100_000,
      interruptAfterTimeLimit: 45_000,
      markInterruptAsFailure: false,
      seed: Date.now() % 2 ** 31,
    },
  );
  console.log(`rest fuzz: ${JSON.stringify(Object.fromEntries(statuses))} over ${ops.length} routes`);
  expect([...statuses.keys()].some((s) => s >= 400 && s < 500)).toBe(true);
  expect((await request.get('/api/health')).status()).toBe(200);
});

test.describe('bad input names the field', () => {
  const field = async (res: APIResponse, name: string) => {
    const text = await res.text();
    expect(res.status(), text).toBe(400);
    expect(text).toContain(name);
    expect(text).not.toMatch(LEAK);
  };

  test('dates before 1970 or after 2299 get 400 naming the field', async ({ request }) => {
    const h = auth(admin);
    const run = (extra: Record<string, unknown>) =>
      request.post('/api/v1/runs', {
        headers: h,
        data: { cluster: known.cluster, workload: 'rest-fuzz-dates', tool: 'pgbench', ...extra },
      });
    await field(await run({ startedAt: '0000-01-01T00:00:00Z' }), 'startedAt');
    await field(await run({ startedAt: '2300-01-01T00:00:00Z' }), 'startedAt');
    const open = await run({});
    expect(open.status()).toBe(200);
    const id = (await open.json()).id;
    await field(
      await request.post(`/api/v1/runs/${id}/finish`, {
        headers: h,
        data: { status: 'failed', finishedAt: '0000-01-01T00:00:00Z' },
      }),
      'finishedAt',
    );
    await field(await request.get('/api/v1/runs?from=0000-01-01T00:00:00Z', { headers: h }), 'from');
    await field(
      await request.get(`/api/v1/clusters/${known.cluster}/events?from=99999999999999&to=99999999999999`, {
        headers: h,
      }),
      'from',
    );
    await field(await request.get('/api/v1/export/runs?from=0000-01-01', { headers: h }), 'from');
  });

  test('params nested deeper than 16 levels get 400 naming params; the run list keeps working', async ({
    request,
  }) => {
    let params: Record<string, unknown> = { v: 1 };
    for (let i = 0; i < 20; i++) params = { a: params };
    const res = await request.post('/api/v1/runs', {
      headers: auth(admin),
      data: { cluster: known.cluster, workload: 'rest-fuzz-deep', tool: 'pgbench', params },
    });
    await field(res, 'params');
    const deep = await request.post('/api/v1/runs', {
      headers: { ...auth(admin), 'content-type': 'application/json' },
      data: `{"cluster":"${known.cluster}","workload":"rest-fuzz-deep","tool":"pgbench","params":${deepJson(2000)}}`,
    });
    expect(deep.status(), await deep.text()).toBe(400);
    expect((await request.get('/api/v1/runs?limit=5', { headers: auth(admin) })).status()).toBe(200);
  });

  test('resolution=raw only up to 6 hours (400 naming resolution), documented in the OpenAPI', async ({
    request,
  }) => {
    const to = Date.now();
    const h = auth(admin);
    const events = (from: number) =>
      request.get(`/api/v1/clusters/${known.cluster}/events?from=${from}&to=${to}&resolution=raw`, {
        headers: h,
      });
    expect((await events(to - 6 * HOUR)).status()).toBe(200);
    await field(await events(to - 7 * HOUR), 'resolution');
    const doc = await (await request.get('/api/v1/openapi.json')).json();
    expect(JSON.stringify(doc.paths['/clusters/{id}/events'])).toContain('6 hours');
  });
});
