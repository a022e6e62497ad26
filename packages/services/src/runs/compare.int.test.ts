import { createCluster, createOrganization, type TDb } from '@clusterscope/db';
import { createRng, drawNormal } from '@clusterscope/bench';
import type { TNodeStatusSample, TRunFilter } from '@clusterscope/schema';
import { createWriter, type TTsdb } from '@clusterscope/tsdb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TCaller } from '../tenancy/caller';
import type { TDeps } from '../core/deps';
import { addRunResults, addRunSamples, createRun, finishRun } from './runs';
import { compareRunIds, compareRunWithBaseline, getRunDetail, getRunPage } from './compare';
import { getRunsPage } from './run-list';
import { listThresholds, saveThreshold, deleteThreshold, getWorkloadHistory } from './thresholds';
import { ackRegressionAlert, findRegressionAlerts } from './regression-alerts';
import { exportComparison, exportResults, exportRuns, toCsv } from './export';
import { useTestEnv } from '../core/test-env';

const env = useTestEnv();
let db: TDb;
let ch: TTsdb;
let deps: TDeps;
let caller: TCaller;
let other: TCaller;
/** The runs page's rows for a filter. */
const runsOf = async (c: TCaller, f: TRunFilter) => (await getRunsPage(deps, c, f)).runs;
let clusterId: string;
const HOUR = 3_600_000;
const T0 = Date.now() - 12 * HOUR;
const ids: Record<string, string> = {};
const rng = createRng(7);
const base = { kind: 'token' as const, tokenId: 't1', scopes: ['admin' as const], clusterId: null };

async function postRun(
  name: string,
  o: { branch: string; hour: number; tps: number; labels?: Record<string, string>; finish?: boolean },
) {
  const { id } = await createRun(deps, caller, {
    cluster: 'prod',
    workload: 'pgbench-tpcb',
    tool: 'pgbench',
    git: { repo: 'acme/db', branch: o.branch, sha: `sha-${name}` },
    labels: o.labels ?? {},
    startedAt: new Date(T0 + o.hour * HOUR).toISOString(),
  });
  const samples = Array.from({ length: 30 }, (_, i) => ({
    elapsed_s: i + 1,
    values: {
      tps: o.tps + 15 * drawNormal(rng),
      lat_p95_ms: (2000 / o.tps) * (1 + 0.02 * drawNormal(rng)),
    },
  }));
  await addRunSamples(deps, caller, { id, samples });
  const mean = samples.reduce((a, s) => a + s.values.tps, 0) / samples.length;
  await addRunResults(deps, caller, { id, metrics: [{ name: 'tps', value: mean }] });
  if (o.finish !== false) await finishRun(deps, caller, { id, status: 'succeeded' });
  ids[name] = id;
  return id;
}

function deadNode(ts: number): TNodeStatusSample {
  return {
    kind: 'node_status', ts, node_id: 2, address: 'n2', sql_address: '', locality: '', build: 'v1',
    started_at: T0, updated_at: ts, liveness: 'DEAD', is_live: false, is_available: false, is_draining: false,
    membership: 'active', replicas: 10, replicas_leaders: 1, replicas_leaseholders: 1, ranges: 10,
    ranges_unavailable: 3, ranges_underreplicated: 5, live_bytes: 0, key_bytes: 0, value_bytes: 0,
    intent_bytes: 0, system_bytes: 0, capacity: 1e9, capacity_available: 1e9, capacity_used: 0, uptime_s: 10,
  }; // prettier-ignore
}

beforeAll(async () => {
  ({ db, deps, ch } = env);
  const org = await createOrganization(db, { name: 'Acme', slug: 'acme' });
  const org2 = await createOrganization(db, { name: 'Other', slug: 'other' });
  clusterId = (await createCluster(db, org.id, { name: 'prod' })).id;
  caller = { ...base, orgId: org.id, orgSlug: 'acme' };
  other = { ...base, orgId: org2.id, orgSlug: 'other' };

  // Four main-branch runs at ~1000 tps form the baseline; a threshold on tps (10% worse) exists from the start.
  await postRun('m1', { branch: 'main', hour: 0, tps: 1000, labels: { env: 'ci' } });
  const workloadId = (await getRunDetail(deps, caller, ids.m1)).workloadId!;
  ids.workload = workloadId;
  await saveThreshold(deps, caller, {
    workloadId,
    metric: 'tps',
    test: 'percentage',
    limit: 10,
    minSamples: 2,
  });
  await postRun('m2', { branch: 'main', hour: 1, tps: 1005 });
  await postRun('m3', { branch: 'main', hour: 2, tps: 995 });
  await postRun('m4', { branch: 'main', hour: 3, tps: 1002 });
  await postRun('slow', { branch: 'feature', hour: 4, tps: 800, labels: { env: 'ci' } });
  await postRun('same', { branch: 'feature', hour: 5, tps: 1001 });
  // The cluster loses a node during this run: it must be flagged and not counted as a regression.
  await postRun('sick', { branch: 'feature', hour: 6, tps: 780, finish: false });
  const w = createWriter(ch);
  await w.write(org.id, clusterId, 'dead-node', [
    deadNode(T0 + 6 * HOUR + 5000),
    deadNode(T0 + 6 * HOUR + 15000),
  ]);
  await w.close();
  await finishRun(deps, caller, { id: ids.sick, status: 'succeeded' });
}, 120_000);

describe('compareRunWithBaseline', () => {
  it('flags a 20% slower run as a tps regression against the pooled main baseline', async () => {
    const c = await compareRunWithBaseline(deps, caller, ids.slow);
    // The workload's threshold (main, window 20) names the default baseline; 4 main runs precede it.
    expect(c.baseline).toMatchObject({
      kind: 'branch',
      branch: 'main',
      window: 20,
      name: 'main (last 4 runs)',
    });
    expect(c.baseline.run_ids).toEqual([ids.m4, ids.m3, ids.m2, ids.m1]);
    expect(c.reason).toMatch(/^regressed: tps -\d+\.\d%/);
    expect(c.rule).toMatch(/p < 0.05/);
    const tps = c.verdicts.find((v) => v.metric === 'tps' && v.source === 'samples')!;
    expect(tps.verdict).toBe('regression');
    expect(tps.change_pct).toBeLessThan(-15);
    expect(tps.ci95![1]).toBeLessThan(0);
    expect(tps.p_value).toBeLessThan(0.05);
    expect(c.verdicts.find((v) => v.metric === 'lat_p95_ms')!.verdict).toBe('regression');
    expect(c).toMatchObject({ regression: true, verdict: 'regression' });
  });

  it('calls an equal run noise, and accepts a run id as baseline', async () => {
    const c = await compareRunWithBaseline(deps, caller, ids.same);
    expect(c.regression).toBe(false);
    expect(c.verdicts.find((v) => v.metric === 'tps')!.verdict).toBe('noise');
    const byRun = await compareRunWithBaseline(deps, caller, ids.slow, ids.same);
    expect(byRun.baseline).toMatchObject({ kind: 'run', run_ids: [ids.same] });
    expect(byRun.regression).toBe(true);
  });

  it('does not count a regression when the environment was unhealthy', async () => {
    const c = await compareRunWithBaseline(deps, caller, ids.sick);
    expect(c.envHealthy).toBe(false);
    expect(c.env_reasons.join(' ')).toMatch(/node 2 was DEAD/);
    expect(c.verdicts.find((v) => v.metric === 'tps')!.verdict).toBe('regression');
    expect(c).toMatchObject({ regression: false, verdict: 'unhealthy_env' });
    // The run page reads the same verdict and the environment in one call.
    const { comparison, environment: env } = await getRunPage(deps, caller, ids.sick);
    expect(comparison).toEqual(c);
    expect(env.healthy).toBe(false);
    expect(env.env?.max_ranges_unavailable).toBe(3);
  });

  it('gives the same run the same verdict and baseline on every path (page, list, compare, alert)', async () => {
    const page = await compareRunWithBaseline(deps, caller, ids.slow);
    const list = (await getRunsPage(deps, caller, { branch: 'feature' })).runs.find(
      (r) => r.id === ids.slow,
    )!;
    const cmp = await compareRunIds(deps, caller, ids.slow, `main:${page.baseline.window}`);
    const alert = (await getWorkloadHistory(deps, caller, ids.workload)).alerts.find(
      (a) => a.runId === ids.slow && a.metric === 'tps',
    )!;
    const seen = [
      { verdict: page.verdict, baseline: page.baseline.name, reason: page.reason },
      { verdict: list.verdict, baseline: list.baselineName, reason: list.verdictReason },
      { verdict: cmp.judgements[0].verdict, baseline: cmp.baseline.name, reason: cmp.judgements[0].reason },
      {
        verdict: alert.runVerdict?.verdict,
        baseline: alert.runVerdict?.baselineName,
        reason: alert.runVerdict?.reason,
      },
    ];
    for (const x of seen) expect(x).toEqual(seen[0]);
    expect(seen[0]).toMatchObject({ verdict: 'regression', baseline: 'main (last 4 runs)' });
    expect(cmp.baseline.run_ids).toEqual(page.baseline.run_ids);
    expect(cmp.runs.map((r) => r.id)).toEqual([ids.m1, ids.m2, ids.m3, ids.m4, ids.slow]);
    // The alert's baseline value and window are the verdict's.
    expect(alert.message).toMatch(
      /^tps [\d,.]+ tx\/s is \d+\.\d % below the baseline [\d,.]+ tx\/s \(main, last 4 runs; limit 10 %\)$/,
    );
    const tps = page.verdicts.find((v) => v.metric === 'tps')!;
    expect(tps.test).toBe('threshold');
    expect(alert.baseline).toBeCloseTo(tps.baseline, 6);
    expect(alert.value).toBeCloseTo(tps.value, 6);
  });

  it('warns and gives no verdict for runs of different tools', async () => {
    const { id } = await createRun(deps, caller, {
      cluster: 'prod',
      workload: 'fio-rand',
      tool: 'fio',
      startedAt: new Date(T0 - HOUR).toISOString(),
    });
    await addRunResults(deps, caller, { id, metrics: [{ name: 'tps', value: 10 }] });
    await finishRun(deps, caller, { id, status: 'succeeded' });
    const c = await compareRunWithBaseline(deps, caller, id, ids.m4);
    expect(c).toMatchObject({ verdict: 'incomparable', regression: false, verdicts: [] });
    expect(c.warning).toBe('different tools (pgbench vs fio)');
    const multi = await compareRunIds(deps, caller, [ids.m4, id]);
    expect(multi.judgements).toEqual([
      {
        run_id: id,
        verdict: 'incomparable',
        evidence: '',
        reason: 'not comparable: different tools (pgbench vs fio)',
        warning: 'different tools (pgbench vs fio)',
        machine_warning: null,
      },
    ]);
  });

  it('has no baseline on an unknown branch and hides other orgs', async () => {
    const c = await compareRunWithBaseline(deps, caller, ids.slow, 'nope');
    expect(c).toMatchObject({ verdict: 'no_baseline', regression: false, verdicts: [] });
    expect(c.baseline.name).toBe('nope (no earlier runs)');
    await expect(compareRunWithBaseline(deps, other, ids.slow)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(compareRunWithBaseline(deps, caller, ids.slow, ids.slow)).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });
});

describe('thresholds and alerts', () => {
  it('creates an alert per regressed metric of the slow run only (not the equal or env-unhealthy run)', async () => {
    const all = await findRegressionAlerts(deps, caller, { workloadId: ids.workload });
    // The run verdict's regressed metrics: tps by its threshold, p95 latency by the default test.
    expect(all.map((a) => [a.runId, a.metric]).sort()).toEqual([
      [ids.slow, 'lat_p95_ms'],
      [ids.slow, 'tps'],
    ]);
    const alerts = all.filter((a) => a.metric === 'tps');
    expect(alerts[0]).toMatchObject({ metric: 'tps', gitBranch: 'feature', acknowledgedAt: null });
    expect(alerts[0].baseline).toBeGreaterThan(990);
    expect(await findRegressionAlerts(deps, other)).toEqual([]);
    await expect(ackRegressionAlert(deps, other, alerts[0].id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const acked = await ackRegressionAlert(deps, caller, alerts[0].id);
    expect(acked.acknowledgedAt).toBeInstanceOf(Date);
    expect(acked.acknowledgedBy).toBe('token:t1');
    for (const a of all) await ackRegressionAlert(deps, caller, a.id);
    expect(await findRegressionAlerts(deps, caller, { unacknowledged: true })).toEqual([]);
  });

  it('rejects threshold writes without workload:write and bad input', async () => {
    const reader: TCaller = { ...base, orgId: caller.orgId, orgSlug: 'acme', scopes: ['read'] };
    await expect(
      saveThreshold(deps, reader, { workloadId: ids.workload, metric: 'tps' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(
      saveThreshold(deps, caller, { workloadId: ids.workload, metric: 'tps', limit: -1 }),
    ).rejects.toThrow(/limit/);
    await expect(
      saveThreshold(deps, other, { workloadId: ids.workload, metric: 'tps' }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const t = await saveThreshold(deps, caller, {
      workloadId: ids.workload,
      metric: 'lat_p95_ms',
      test: 'z_score',
      limit: 3,
    });
    expect((await listThresholds(deps, caller, ids.workload)).map((x) => x.metric)).toEqual([
      'lat_p95_ms',
      'tps',
    ]);
    await deleteThreshold(deps, caller, t.id);
    expect((await listThresholds(deps, caller, ids.workload)).length).toBe(1);
  });

  it('builds the workload history with a threshold band', async () => {
    const h = await getWorkloadHistory(deps, caller, ids.workload);
    const tps = h.metrics.find((m) => m.metric === 'tps')!;
    expect(tps.points.map((p) => p.runId)).toEqual([
      ids.m1,
      ids.m2,
      ids.m3,
      ids.m4,
      ids.slow,
      ids.same,
      ids.sick,
    ]);
    expect(tps.band!.lo).toBeGreaterThan(850);
    expect(tps.band!.lo).toBeLessThan(tps.band!.mean);
    expect(h.alerts.map((a) => a.metric).sort()).toEqual(['lat_p95_ms', 'tps']);
    // Each run judged by the threshold carries the boundary it was judged against (the chart's line).
    const slow = tps.points.find((p) => p.runId === ids.slow)!;
    expect(slow.bound).toBeGreaterThan(slow.value);
    expect(tps.points.find((p) => p.runId === ids.m1)!.bound).toBeNull();
    await expect(getWorkloadHistory(deps, other, ids.workload)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('multi-run comparison, list and export', () => {
  it('compares up to 8 runs against the first', async () => {
    const c = await compareRunIds(deps, caller, `${ids.m1},${ids.slow},${ids.same}`);
    expect(c.runs.map((r) => r.id)).toEqual([ids.m1, ids.slow, ids.same]);
    const tps = c.metrics.find((m) => m.metric === 'tps')!;
    expect(tps.deltas.map((d) => d.verdict)).toEqual(['regression', 'noise']);
    expect(c.samples[ids.slow].length).toBe(30);
    await expect(compareRunIds(deps, caller, ids.m1)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(compareRunIds(deps, caller, `${ids.m1},missing`)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('lists runs with filters, key metrics and verdicts', async () => {
    const { runs: rows } = await getRunsPage(deps, caller, { branch: 'feature' });
    const by = Object.fromEntries(rows.map((r) => [r.id, r]));
    expect(rows.length).toBe(3);
    expect(by[ids.slow].verdict).toBe('regression');
    expect(by[ids.same].verdict).toBe('noise');
    expect(by[ids.sick].verdict).toBe('unhealthy_env');
    expect(by[ids.slow].key.map((k) => k.metric)).toEqual(['tps', 'lat_p95_ms']);
    expect(by[ids.slow].key[0].spark.length).toBe(30);
    const first = await runsOf(caller, { branch: 'main' });
    expect(first.find((r) => r.id === ids.m1)!.verdict).toBe('no_baseline');
    expect((await runsOf(caller, { label: 'env=ci' })).map((r) => r.id).sort()).toEqual(
      [ids.m1, ids.slow].sort(),
    );
    expect((await runsOf(caller, { label: 'env' })).length).toBe(2);
    // 7 pgbench runs + the fio run of the "different tools" test.
    expect((await runsOf(caller, { cluster: 'prod', status: 'succeeded' })).length).toBe(8);
    expect(await runsOf(caller, { cluster: 'nope' })).toEqual([]);
    const d = new Date(T0 + 4 * HOUR).toISOString();
    expect((await runsOf(caller, { from: d })).length).toBe(3);
    await expect(runsOf(caller, { from: 'yesterday' })).rejects.toThrow(/from: not a date/);
    expect(await runsOf(other, {})).toEqual([]);
  });

  it('reads baselines once per series for the runs list, with the verdict each run’s own page gives', async () => {
    let reads = 0;
    const counting = <T extends object>(o: T, count: PropertyKey, inner?: PropertyKey): T =>
      new Proxy(o, {
        get(target, key) {
          const v = Reflect.get(target, key, target) as unknown;
          if (key === inner) return counting(v as object, 'findMany');
          if (key !== count || typeof v !== 'function') return v;
          return (...a: unknown[]) => {
            reads++;
            return (v as (...x: unknown[]) => unknown).apply(target, a);
          };
        },
      });
    const counted = { ...deps, db: counting(deps.db, '', 'run') };
    const { runs } = await getRunsPage(counted, caller, {});
    const judged = runs.filter((r) => r.status === 'succeeded');
    expect(judged.length).toBeGreaterThanOrEqual(7);
    // One read for the list (and its stale-run check), one per series: not one per run.
    expect(reads).toBeLessThan(judged.length);
    for (const r of judged) {
      const page = await compareRunWithBaseline(deps, caller, r.id);
      expect({ id: r.id, verdict: r.verdict, baseline: r.baselineName }).toEqual({
        id: r.id,
        verdict: page.verdict,
        baseline: page.baseline.name,
      });
    }
  });

  it('exports runs, results and comparisons as CSV and JSON', async () => {
    const runs = await exportRuns(deps, caller, { branch: 'main' }, 'csv');
    const lines = runs.body.trim().split('\r\n');
    expect(lines[0]).toMatch(/^id,started_at,.*,env_healthy,tps \(tx\/s\)$/);
    expect(lines.length).toBe(5);
    const res = await exportResults(deps, caller, ids.slow, 'csv');
    expect(res.filename).toBe(`run-${ids.slow}-results.csv`);
    expect(res.body.split('\r\n').filter((l) => l.startsWith('sample,tps,')).length).toBe(30);
    const json = JSON.parse((await exportResults(deps, caller, ids.slow, 'json')).body);
    expect(json.samples.tps.length).toBe(30);
    const cmp = await exportComparison(deps, caller, [ids.m1, ids.slow], 'csv');
    expect(cmp.body).toMatch(/^metric,unit,direction,baseline_run,run,/);
    expect(cmp.body).toContain(',regression');
    expect(toCsv(['a', 'b'], [['a,"b"', '=1+1']])).toBe('a,b\r\n"a,""b""",\'=1+1\r\n');
  });
});
