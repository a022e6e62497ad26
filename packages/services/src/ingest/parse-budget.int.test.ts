import { readFileSync, rmSync } from 'node:fs';
import { createCluster, createOrganization, getRun } from '@clusterscope/db';
import { getBenchSamples } from '@clusterscope/tsdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TCaller } from '../tenancy/caller';
import type { TDeps } from '../core/deps';
import { createParser } from './parse-pool';
import { createLogger } from '../core/logger';
import { addRunOutput, addRunOutputBytes, createRun } from '../runs/runs';
import { bootWorkerFromSource } from '../testing';
import { errorReason, useTestEnv } from '../core/test-env';

// Posted output is parsed on the parse worker (from source through tsx here) with a time budget.
const env = useTestEnv();
const { entry, dir } = bootWorkerFromSource('ingest/parse-worker.ts');
const roomy = createParser({ entry, budgetMs: 60_000, log: createLogger({ level: 'silent' }) });
const tight = createParser({ entry, budgetMs: 300, log: createLogger({ level: 'silent' }) });
let deps: TDeps;
let ci: TCaller;

beforeAll(async () => {
  deps = { ...env.deps, parser: roomy };
  const org = await createOrganization(env.db, { name: 'Budget', slug: 'budget' });
  await createCluster(env.db, org.id, { name: 'prod' });
  ci = {
    kind: 'token',
    tokenId: 't',
    clusterId: null,
    orgId: org.id,
    orgSlug: 'budget',
    scopes: ['runs:write'],
  };
});
afterAll(async () => {
  await Promise.all([roomy.close(), tight.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('POST output parsed off the request thread', { timeout: 120_000 }, () => {
  it('parses a real output on the worker, detecting the tool for a new workload', async () => {
    const output = readFileSync(new URL('../../../bench/fixtures/hey.txt', import.meta.url), 'utf8');
    const { id, parsed } = await createRun(deps, ci, { cluster: 'prod', workload: 'web', output });
    expect(parsed?.tool).toBe('hey');
    expect(parsed?.summary.find((m) => m.name === 'rps')?.value).toBeGreaterThan(0);
    expect((await getRun(env.db, ci.orgId, id))?.tool).toBe('hey');
  });

  it('answers 422 "could not be parsed in time" past the budget, stores nothing, and parses the next output', async () => {
    const slow = { ...deps, parser: tight };
    const { id } = await createRun(slow, ci, { cluster: 'prod', workload: 'slow', tool: 'hey' });
    // 8 MB of summary lines: seconds of (linear) parsing, far past the 300 ms budget.
    const output = 'Summary:\n' + '  Total: 1 secs\n'.repeat((8 * 1024 * 1024) / 16 - 1);
    const why = await errorReason(addRunOutput(slow, ci, { id, output }));
    expect(why).toMatch(/^UNPROCESSABLE_CONTENT: output: the output could not be parsed in time/);
    expect((await getRun(env.db, ci.orgId, id))?.rawOutput ?? null).toBeNull();
    const ok = readFileSync(new URL('../../../bench/fixtures/wrk_plain.txt', import.meta.url), 'utf8');
    expect((await addRunOutput(slow, ci, { id, output: ok, tool: 'wrk' })).tool).toBe('wrk');
  });

  it('takes a raw body as bytes: parsed on the worker, stored as text; not UTF-8 or NUL is a 400', async () => {
    const { id } = await createRun(deps, ci, { cluster: 'prod', workload: 'raw', tool: 'wrk' });
    const ok = readFileSync(new URL('../../../bench/fixtures/wrk_plain.txt', import.meta.url));
    const out = await addRunOutputBytes(deps, ci, { id, bytes: new Uint8Array(ok) });
    expect(out.tool).toBe('wrk');
    expect((await getRun(env.db, ci.orgId, id))?.rawOutput).toBe(ok.toString('utf8'));
    for (const [bytes, message] of [
      [new Uint8Array([0x52, 0xff, 0xfe]), /^BAD_REQUEST: output: the body is not UTF-8$/],
      [new TextEncoder().encode('Requests/sec: 1\u0000'), /^BAD_REQUEST: output: may not contain a NUL/],
    ] as const)
      expect(await errorReason(addRunOutputBytes(deps, ci, { id, bytes }))).toMatch(message);
  });

  it("stores a raw body's interval samples as the worker encoded them: the same rows and summary as parsed here", async () => {
    const text = readFileSync(
      new URL('../../../bench/fixtures/sysbench_oltp_read_only_pgsql.txt', import.meta.url),
      'utf8',
    );
    const viaWorker = await createRun(deps, ci, { cluster: 'prod', workload: 'rows', tool: 'sysbench' });
    const here = await createRun(deps, ci, { cluster: 'prod', workload: 'rows', tool: 'sysbench' });
    const a = await addRunOutputBytes(deps, ci, { id: viaWorker.id, bytes: new TextEncoder().encode(text) });
    const b = await addRunOutput(deps, ci, { id: here.id, output: text });
    expect(a.samples).toBe(4);
    expect(a.samples).toBe(b.samples);
    expect(a.summary).toEqual(b.summary);
    expect(a.summary.map((m) => m.name)).toContain('qps');
    const rows = async (id: string) =>
      (await getBenchSamples(env.deps.ch, ci.orgId, [id]))
        .map((r) => `${r.elapsed_s} ${r.metric} ${r.value}`)
        .sort();
    const stored = await rows(viaWorker.id);
    expect(stored.length).toBeGreaterThanOrEqual(4 * 5);
    expect(stored).toEqual(await rows(here.id));
    // Posted again: the same batch, stored once.
    const again = await addRunOutputBytes(deps, ci, {
      id: viaWorker.id,
      bytes: new TextEncoder().encode(text),
    });
    expect(again.samples).toBe(0);
    expect(await rows(viaWorker.id)).toEqual(stored);
  });

  it('a raw body past the budget answers 422 too, and one over 8 MB is refused before parsing', async () => {
    const slow = { ...deps, parser: tight };
    const { id } = await createRun(slow, ci, { cluster: 'prod', workload: 'slow-raw', tool: 'hey' });
    const bytes = new TextEncoder().encode(
      'Summary:\n' + '  Total: 1 secs\n'.repeat((8 * 1024 * 1024) / 16 - 1),
    );
    const why = await errorReason(addRunOutputBytes(slow, ci, { id, bytes }));
    expect(why).toMatch(/^UNPROCESSABLE_CONTENT: output: the output could not be parsed in time/);
    expect((await getRun(env.db, ci.orgId, id))?.rawOutput ?? null).toBeNull();
    const big = new Uint8Array(8 * 1024 * 1024 + 1);
    expect(await errorReason(addRunOutputBytes(slow, ci, { id, bytes: big }))).toMatch(
      /^PAYLOAD_TOO_LARGE: output: more than 8192 KB/,
    );
  });
});
