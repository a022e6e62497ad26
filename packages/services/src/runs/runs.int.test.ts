import { readFileSync } from 'node:fs';
import {
  createCluster,
  createOrganization,
  findClusterByName,
  listAudit,
  setAutoCreateClusters,
  type TDb,
} from '@clusterscope/db';
import { getBenchResults, getBenchSamples, type TTsdb } from '@clusterscope/tsdb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TCaller } from '../tenancy/caller';
import type { TDeps } from '../core/deps';
import {
  addRunOutput,
  addRunResults,
  addRunSamples,
  createRun,
  listRuns,
  finishRun,
  getRun,
  getRunOutput,
} from './runs';
import { compareRunIds, compareRunWithBaseline, findRunRows, getRunDetail } from './compare';
import { getRunsPage } from './run-list';
import { queryRuns } from '../tenancy/access';
import { useTestEnv, errorReason } from '../core/test-env';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../bench/fixtures/${name}`, import.meta.url), 'utf8');

const env = useTestEnv();
let db: TDb;
let ch: TTsdb;
let deps: TDeps;
let ci: TCaller;
let other: TCaller;
let ingestOnly: TCaller;
let viewer: TCaller;

beforeAll(async () => {
  ({ db, deps, ch } = env);
  const org = await createOrganization(db, { name: 'Acme', slug: 'acme' });
  const org2 = await createOrganization(db, { name: 'Other', slug: 'other' });
  await createCluster(db, org.id, { name: 'prod' });
  await createCluster(db, org2.id, { name: 'prod' });
  const t = { kind: 'token' as const, tokenId: 't', clusterId: null };
  ci = { ...t, orgId: org.id, orgSlug: 'acme', scopes: ['runs:write'] };
  ingestOnly = { ...t, orgId: org.id, orgSlug: 'acme', scopes: ['ingest'] };
  other = { ...t, orgId: org2.id, orgSlug: 'other', scopes: ['runs:write'] };
  viewer = { kind: 'user', userId: 'u1', orgId: org.id, orgSlug: 'acme', role: 'viewer' };
});

describe('runs service', () => {
  it('runs the CI flow: create → output → finish → get', async () => {
    const { id } = await createRun(deps, ci, {
      cluster: 'prod',
      workload: 'oltp-ro',
      tool: 'sysbench',
      git: { repo: 'acme/db', branch: 'main', sha: 'abc123' },
      labels: { runner: 'gh' },
    });
    const out = await addRunOutput(deps, ci, { id, output: fixture('sysbench_oltp_read_only_pgsql.txt') });
    expect(out.tool).toBe('sysbench');
    expect(out.incomplete).toBe(false);
    expect(out.samples).toBeGreaterThan(0);
    const tps = out.summary.find((m) => m.name === 'tps');
    expect(tps).toMatchObject({ unit: 'tx/s', direction: 'higher' });
    // A retried post stores the samples once.
    const again = await addRunOutput(deps, ci, { id, output: fixture('sysbench_oltp_read_only_pgsql.txt') });
    expect(again.samples).toBe(0);
    const rows = await getBenchSamples(ch, ci.orgId, [id], { metrics: ['tps'] });
    expect(rows).toHaveLength(out.samples);

    const done = await finishRun(deps, ci, { id, status: 'succeeded', exitCode: 0 });
    expect(done.status).toBe('succeeded');
    expect(done.finishedAt).not.toBeNull();
    expect(await errorReason(finishRun(deps, ci, { id, status: 'failed' }))).toMatch(/^CONFLICT/);

    const got = await getRun(deps, ci, id);
    expect(got).toMatchObject({
      workloadName: 'oltp-ro',
      toolWorkload: 'oltp_read_only',
      hasRawOutput: true,
    });
    expect(got.summary.every((m) => m.unit !== undefined && ['higher', 'lower'].includes(m.direction))).toBe(
      true,
    );
    expect(got.summary.find((m) => m.name === 'tps')?.value).toBe(tps?.value);
    expect(await getRunOutput(deps, ci, id)).toContain('SQL statistics');
    const results = await getBenchResults(ch, ci.orgId, [id]);
    expect(results.find((r) => r.metric === 'tps')?.value).toBe(tps?.value);
  });

  it('keeps live samples and ignores the output intervals (never both)', async () => {
    const { id } = await createRun(deps, ci, { cluster: 'prod', workload: 'tpcb', tool: 'pgbench' });
    const live = await addRunSamples(deps, ci, {
      id,
      batchId: 'live-0001',
      samples: [
        { elapsed_s: 1, values: { tps: 100, lat_avg_ms: 2 } },
        { elapsed_s: 2, values: { tps: 110, lat_avg_ms: 2.1 } },
      ],
    });
    expect(live).toMatchObject({ accepted: 2, duplicate: false });
    const retry = await addRunSamples(deps, ci, {
      id,
      batchId: 'live-0001',
      samples: [{ elapsed_s: 1, values: { tps: 100 } }],
    });
    expect(retry.duplicate).toBe(true);
    const out = await addRunOutput(deps, ci, { id, output: fixture('pgbench_tpcb.txt') });
    expect(out.samples).toBe(0);
    expect(out.warnings.join(' ')).toMatch(/posted live/);
    const { series } = await getRunDetail(deps, ci, id);
    expect(series.tps).toEqual([
      [1, 100],
      [2, 110],
    ]);
    expect(Object.keys(series).sort()).toEqual(['lat_avg_ms', 'tps']);
  });

  it('rejects garbage output with what was recognised, and warns on truncated output', async () => {
    const { id } = await createRun(deps, ci, { cluster: 'prod', workload: 'any', tool: 'wrk' });
    const bad = await errorReason(addRunOutput(deps, { ...ci }, { id, output: 'hello\nworld\n' }));
    expect(bad).toMatch(/^UNPROCESSABLE_CONTENT: output: .*recognised/);
    const empty = await errorReason(addRunOutput(deps, ci, { id, output: '' }));
    expect(empty).toMatch(/^UNPROCESSABLE_CONTENT/);

    const { id: id2 } = await createRun(deps, ci, {
      cluster: 'prod',
      workload: 'ro-trunc',
      tool: 'sysbench',
    });
    const out = await addRunOutput(deps, ci, {
      id: id2,
      output: fixture('truncated_sysbench_oltp_read_only.txt'),
    });
    expect(out.incomplete).toBe(true);
    expect(out.warnings.some((w) => w.startsWith('incomplete'))).toBe(true);
    expect((await getRun(deps, ci, id2)).warnings.some((w) => w.startsWith('incomplete'))).toBe(true);
  });

  it('stores structured results with catalogue units and requires a direction for unknown metrics', async () => {
    const { id } = await createRun(deps, ci, { cluster: 'prod', workload: 'oltp-ro' });
    const r = await addRunResults(deps, ci, {
      id,
      metrics: [
        { name: 'tps', value: 1234.5 },
        { name: 'read.lat_p99_ms', value: 9 },
        { name: 'custom_score', value: 7, unit: 'pts', direction: 'higher' },
      ],
    });
    expect(r.summary).toEqual([
      { name: 'tps', value: 1234.5, unit: 'tx/s', direction: 'higher' },
      { name: 'read.lat_p99_ms', value: 9, unit: 'ms', direction: 'lower' },
      { name: 'custom_score', value: 7, unit: 'pts', direction: 'higher' },
    ]);
    expect(
      await errorReason(addRunResults(deps, ci, { id, metrics: [{ name: 'mystery', value: 1 }] })),
    ).toMatch(/metrics\.0\.direction/);
  });

  it('needs a tool for a new workload, a known cluster and run write permission', async () => {
    expect(await errorReason(createRun(deps, ci, { cluster: 'prod', workload: 'brand-new' }))).toMatch(
      /UNPROCESSABLE_CONTENT: tool: required/,
    );
    // An unknown id (never taken for a new name) is NOT_FOUND.
    const unknownId = 'cunknownclusterid0000000000';
    expect(await errorReason(createRun(deps, ci, { cluster: unknownId, workload: 'oltp-ro' }))).toMatch(
      /^NOT_FOUND/,
    );
    expect(await errorReason(createRun(deps, ingestOnly, { cluster: 'prod', workload: 'oltp-ro' }))).toMatch(
      /^FORBIDDEN/,
    );
    expect(await errorReason(createRun(deps, viewer, { cluster: 'prod', workload: 'oltp-ro' }))).toMatch(
      /^FORBIDDEN/,
    );
  });

  it('creates a cluster CI names when the org allows it (audited, said in the answer), else 404 says how to create it', async () => {
    const name = `ci-new-${Date.now()}`;
    // Off for a new organization: a typo must not make a cluster.
    expect(await errorReason(createRun(deps, ci, { cluster: name, workload: 'oltp-ro' }))).toMatch(
      /^NOT_FOUND: cluster '.*' not found in this organization/,
    );
    await setAutoCreateClusters(db, ci.orgId, true);
    const { id, notice } = await createRun(deps, ci, { cluster: name, workload: 'oltp-ro' });
    expect(notice).toBe(`created cluster '${name}'`);
    const made = await findClusterByName(db, ci.orgId, name);
    expect(made).not.toBeNull();
    expect((await getRun(deps, ci, id)).clusterId).toBe(made!.id);
    const audit = await listAudit(db, ci.orgId, { limit: 10, action: 'cluster.create' });
    expect(audit.find((a) => a.targetId === made!.id)?.data).toMatchObject({ name, auto: true });
    // A second run reuses it (no notice); a token bound to another cluster never creates one.
    expect((await createRun(deps, ci, { cluster: name, workload: 'oltp-ro' })).notice).toBeUndefined();
    expect((await listAudit(db, ci.orgId, { limit: 50, action: 'cluster.create' })).length).toBe(
      audit.length,
    );
    const bound = { ...ci, clusterId: made!.id };
    expect(await errorReason(createRun(deps, bound, { cluster: `${name}-2`, workload: 'oltp-ro' }))).toMatch(
      /^NOT_FOUND/,
    );
    // Turned off: 404 naming the way to create it, nothing created.
    await setAutoCreateClusters(db, ci.orgId, false);
    try {
      expect(await errorReason(createRun(deps, ci, { cluster: `${name}-off`, workload: 'oltp-ro' }))).toMatch(
        /^NOT_FOUND: cluster '.*-off' not found in this organization: create it in Settings → Clusters/,
      );
      expect(await findClusterByName(db, ci.orgId, `${name}-off`)).toBeNull();
    } finally {
      await setAutoCreateClusters(db, ci.orgId, true);
    }
  });

  it('creates a new workload without tool from posted output (tool detected) and fails a run whose output ends in an error', async () => {
    const movr = fixture('real/v21.2-workload-movr.txt');
    const { id, parsed } = await createRun(deps, ci, {
      cluster: 'prod',
      workload: 'movr-nightly',
      output: movr,
    });
    expect(parsed).toMatchObject({ tool: 'cockroach-workload', workload: 'movr', error: null });
    const run = await getRun(deps, ci, id);
    expect(run).toMatchObject({
      tool: 'cockroach-workload',
      workloadName: 'movr-nightly',
      toolWorkload: 'movr',
    });
    expect(
      await errorReason(createRun(deps, ci, { cluster: 'prod', workload: 'mystery', output: 'hello' })),
    ).toMatch(/UNPROCESSABLE_CONTENT: output: no known tool recognised/);

    const broken = movr.split('\n\n')[0] + '\nError: pq: relation "movr.users" does not exist\n';
    const r2 = await createRun(deps, ci, { cluster: 'prod', workload: 'movr-nightly', output: broken });
    expect(r2.parsed?.error).toBe('Error: pq: relation "movr.users" does not exist');
    const done = await finishRun(deps, ci, { id: r2.id, status: 'succeeded', exitCode: 0 });
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/output ends in an error: Error: pq: relation/);
  });

  it('fails runs whose recorded sysbench, fio or pgbench output failed, with the tool’s message (fixtures/failed)', async () => {
    for (const [file, tool, message] of [
      [
        'failed/sysbench-pgsql-fatal.txt',
        'sysbench',
        'FATAL: PQexecPrepared() failed: 7 relation "sbtest1" does not exist',
      ],
      ['failed/fio-zns-write-io-error.txt', 'fio', 'fio: io_u error on file /dev/nullb0: Input/output error'],
      ['failed/fio-enospc.json', 'fio', 'fio: io_u error on file /dev/full: No space left on device'],
      ['failed/pgbench-client-aborted.txt', 'pgbench', 'pgbench: error: client 0 aborted in command 4'],
    ] as const) {
      const r = await createRun(deps, ci, {
        cluster: 'prod',
        workload: `failed-${tool}`,
        output: fixture(file),
      });
      expect(r.parsed?.tool, file).toBe(tool);
      expect(r.parsed?.error, file).toContain(message);
      const done = await finishRun(deps, ci, { id: r.id, status: 'succeeded', exitCode: 0 });
      expect(done.status, file).toBe('failed');
      expect(done.error, file).toContain(`output ends in an error: ${message}`);
    }
    // A stall: the seconds without a finished transaction are stored without latency (a gap), not as 0 ms.
    const stall = await createRun(deps, ci, {
      cluster: 'prod',
      workload: 'stalled-sysbench',
      output: fixture('failed/sysbench-pgsql-stall.txt'),
    });
    const rows = await getBenchSamples(ch, ci.orgId, [stall.id]);
    const p95 = rows.filter((x) => x.metric === 'lat_p95_ms').map((x) => x.elapsed_s);
    expect(p95).toEqual([1, 2, 3, 4, 7, 8, 9, 10]);
    expect(rows.filter((x) => x.metric === 'tps' && x.value === 0).map((x) => x.elapsed_s)).toEqual([5, 6]);
  });

  it('reads the CI formats posted as output (hyperfine, k6, BenchBase, YCSB): detected, stored, failed runs fail, bad input names the line', async () => {
    for (const [file, tool, metric] of [
      ['ci-formats/hyperfine_sleep.json', 'hyperfine', 'sleep 0.1.time_mean_s'],
      ['ci-formats/k6_handle_summary.json', 'k6', 'my_trend.lat_p95_ms'],
      ['ci-formats/benchbase_tpcc_sqlite.summary.json', 'benchbase', 'tps'],
      ['ci-formats/ycsb_redis_workloada.txt', 'ycsb', 'ops_per_s'],
    ] as const) {
      const r = await createRun(deps, ci, { cluster: 'prod', workload: `ci-${tool}`, output: fixture(file) });
      expect(r.parsed?.tool, file).toBe(tool);
      expect(
        r.parsed?.summary.some((m) => m.name === metric),
        file,
      ).toBe(true);
    }
    const failed = await createRun(deps, ci, {
      cluster: 'prod',
      workload: 'ycsb-riak',
      output: fixture('ci-formats/ycsb_riak_read_failed.txt'),
    });
    const done = await finishRun(deps, ci, { id: failed.id, status: 'succeeded', exitCode: 0 });
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/every operation failed \(read: ERROR 1000\)/);
    const { id } = await createRun(deps, ci, { cluster: 'prod', workload: 'ci-k6', tool: 'k6' });
    expect(
      await errorReason(
        addRunOutput(deps, ci, { id, output: '{\n "metrics": {\n  "vus": {"value": 1,,}\n }\n}' }),
      ),
    ).toMatch(/^UNPROCESSABLE_CONTENT: output: k6: invalid JSON at line 3, column \d+/);
    expect(
      await errorReason(
        addRunOutput(deps, ci, {
          id,
          tool: 'ycsb',
          output: '[OVERALL], RunTime(ms), 1\n[READ], Operations, many\n',
        }),
      ),
    ).toMatch(/^UNPROCESSABLE_CONTENT: output: ycsb: line 2: "many" is not a number/);
  });

  it('isolates organizations', async () => {
    const { id } = await createRun(deps, ci, { cluster: 'prod', workload: 'oltp-ro' });
    expect(await errorReason(getRun(deps, other, id))).toMatch(/^NOT_FOUND/);
    expect(await errorReason(finishRun(deps, other, { id, status: 'failed' }))).toMatch(/^NOT_FOUND/);
    expect(
      await errorReason(addRunSamples(deps, other, { id, samples: [{ elapsed_s: 1, values: { tps: 1 } }] })),
    ).toMatch(/^NOT_FOUND/);
    expect((await listRuns(deps, other, { limit: 50 })).items).toHaveLength(0);
  });

  it("a token bound to one cluster reads none of another cluster's runs through the read model", async () => {
    const staging = await createCluster(db, ci.orgId, { name: 'staging' });
    const bound: TCaller = {
      kind: 'token',
      tokenId: 't',
      orgId: ci.orgId,
      orgSlug: 'acme',
      clusterId: staging.id,
      scopes: ['runs:write'],
    };
    const finished = async (sha: string) => {
      const r = await createRun(deps, ci, {
        cluster: 'prod',
        workload: 'bound-wl',
        tool: 'fio',
        git: { repo: 'r', branch: 'main', sha },
      });
      await addRunResults(deps, ci, { id: r.id, metrics: [{ name: 'read_iops', value: 10 }] });
      return (await finishRun(deps, ci, { id: r.id, status: 'succeeded' })).id;
    };
    const a = await finished('b0');
    const b = await finished('b1');
    const mine = await createRun(deps, bound, {
      cluster: 'staging',
      workload: 'bound-wl',
      git: { repo: 'r', branch: 'main', sha: 'b2' },
    });
    // Single reads and comparisons: NOT_FOUND.
    expect(await errorReason(getRun(deps, bound, a))).toMatch(/^NOT_FOUND/);
    expect(await errorReason(getRunDetail(deps, bound, a))).toMatch(/^NOT_FOUND/);
    expect(await errorReason(compareRunIds(deps, bound, [a, b]))).toMatch(/^NOT_FOUND/);
    expect(await errorReason(compareRunWithBaseline(deps, bound, a))).toMatch(/^NOT_FOUND/);
    // Lists: only its cluster's runs, also when it names the other cluster.
    const seen = (await listRuns(deps, bound, { workload: 'bound-wl', limit: 50 })).items.map((r) => r.id);
    expect(seen).toEqual([mine.id]);
    expect(await errorReason(listRuns(deps, bound, { cluster: 'prod', limit: 50 }))).toMatch(/^NOT_FOUND/);
    expect((await findRunRows(deps, bound, { workload: 'bound-wl' })).map((r) => r.id)).toEqual([mine.id]);
    expect(await findRunRows(deps, bound, { cluster: 'prod' })).toEqual([]);
    expect((await getRunsPage(deps, bound, { workload: 'bound-wl' })).meta.total).toBe(1);
    // A run id of the other cluster used as a baseline is not a run for it (no baseline runs).
    const cmp = await compareRunWithBaseline(deps, bound, mine.id, a);
    expect(cmp.baseline.run_ids).toEqual([]);
    expect(
      await queryRuns(deps, bound, { clusterId: (await getRun(deps, ci, a)).clusterId! }, { limit: 5 }),
    ).toEqual({
      items: [],
      nextCursor: null,
    });
  });

  it('lists with filters and cursor pagination, newest first', async () => {
    const start = Date.parse('2026-01-01T00:00:00Z');
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { id } = await createRun(deps, ci, {
        cluster: 'prod',
        workload: 'list-wl',
        tool: 'fio',
        git: { repo: 'r', branch: i % 2 ? 'feat' : 'main', sha: `s${i}` },
        labels: { idx: String(i), kind: 'list' },
        startedAt: new Date(start + i * 60_000).toISOString(),
      });
      made.push(id);
    }
    const all = await listRuns(deps, ci, { workload: 'list-wl', limit: 2 });
    expect(all.items.map((r) => r.id)).toEqual([made[4], made[3]]);
    const p2 = await listRuns(deps, ci, { workload: 'list-wl', limit: 2, cursor: all.nextCursor! });
    const p3 = await listRuns(deps, ci, { workload: 'list-wl', limit: 2, cursor: p2.nextCursor! });
    expect([...p2.items, ...p3.items].map((r) => r.id)).toEqual([made[2], made[1], made[0]]);
    expect(p3.nextCursor).toBeNull();

    const main = await listRuns(deps, ci, { workload: 'list-wl', branch: 'main', limit: 50 });
    expect(main.items.map((r) => r.git.sha).sort()).toEqual(['s0', 's2', 's4']);
    const lab = await listRuns(deps, ci, { label: 'idx=3,kind=list', limit: 50 });
    expect(lab.items.map((r) => r.id)).toEqual([made[3]]);
    const win = await listRuns(deps, ci, {
      tool: 'fio',
      from: new Date(start + 60_000).toISOString(),
      to: new Date(start + 180_000).toISOString(),
      limit: 50,
    });
    expect(win.items.map((r) => r.id)).toEqual([made[2], made[1]]);
    expect(
      (await listRuns(deps, ci, { status: 'succeeded', workload: 'list-wl', limit: 50 })).items,
    ).toHaveLength(0);
    expect(await errorReason(listRuns(deps, ci, { label: 'oops', limit: 50 }))).toMatch(
      /^BAD_REQUEST: label/,
    );
  });
});
