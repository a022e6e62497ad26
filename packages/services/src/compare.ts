import {
  compareRuns,
  getMetricInfo,
  directionOf,
  type TMetricComparison,
  type TRunData,
} from '@clusterscope/bench';
import {
  findBaselineRuns,
  searchRuns,
  listThresholds,
  type findRunsByIds,
  type RunStatus,
} from '@clusterscope/db';
import {
  ZMetric,
  ZRunFilter,
  parseDay,
  type TComparison,
  type TIntervalSample,
  type TMetric,
  type TMetricVerdict,
  type TRunBrief,
  type TRunComparison,
  type TRunFilter,
  type TRunVerdict,
} from '@clusterscope/schema';
import { getBenchResults, getBenchSamples } from '@clusterscope/tsdb';
import { z } from 'zod';
import type { TDeps } from './deps';
import { assertCan, type TCaller } from './caller';
import { resolveCluster } from './clusters';
import { boundClusterOf, loadRun, loadRuns } from './access';
import { AppError, notFound } from './errors';

export type TRunRow = Awaited<ReturnType<typeof findRunsByIds>>[number];

/** Runs pooled into a branch baseline (their trimmed samples are concatenated). */
export const BASELINE_POOL = 3;
export const DEFAULT_BASELINE_BRANCH = 'main';
/** Throughput metrics in order of preference for the run list's key metric. */
const THROUGHPUT = ['tps', 'ops_per_s', 'qps', 'rps', 'events_per_s', 'tpmC', 'read_iops', 'write_iops'];
const LATENCY = ['lat_p95_ms', 'lat_p99_ms', 'lat_avg_ms', 'lat_p50_ms'];

function toLabels(v: unknown): Record<string, string> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
}

export function toRunBrief(r: TRunRow): TRunBrief {
  return {
    id: r.id,
    tool: r.tool,
    toolWorkload: r.toolWorkload,
    workloadId: r.workloadId,
    workloadName: r.workload?.name ?? null,
    clusterId: r.clusterId,
    clusterName: r.cluster?.name ?? null,
    gitBranch: r.gitBranch,
    gitSha: r.gitSha,
    labels: toLabels(r.labels),
    status: r.status,
    envHealthy: r.envHealthy,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
  };
}

/** Run.summary JSON as metrics (invalid entries are dropped). */
export function getRunSummary(r: { summary: unknown }): TMetric[] {
  const parsed = z.array(z.unknown()).safeParse(r.summary);
  if (!parsed.success) return [];
  return parsed.data.flatMap((m) => {
    const x = ZMetric.safeParse(m);
    return x.success ? [x.data] : [];
  });
}

/** Samples (long rows) and summaries of runs as bench TRunData, keyed by run id. */
export async function loadRunData(
  deps: TDeps,
  orgId: string,
  runs: readonly TRunRow[],
  opts: { metrics?: readonly string[] } = {},
): Promise<Map<string, TRunData>> {
  const ids = runs.map((r) => r.id);
  const rows = await getBenchSamples(deps.ch, orgId, ids, opts);
  const byRun = new Map<string, Map<number, Record<string, number>>>();
  for (const r of rows) {
    let m = byRun.get(r.run_id);
    if (!m) byRun.set(r.run_id, (m = new Map()));
    let vals = m.get(r.elapsed_s);
    if (!vals) m.set(r.elapsed_s, (vals = {}));
    vals[r.metric] = r.value;
  }
  const missing = runs.filter((r) => getRunSummary(r).length === 0).map((r) => r.id);
  const results = missing.length ? await getBenchResults(deps.ch, orgId, missing) : [];
  const out = new Map<string, TRunData>();
  for (const r of runs) {
    const samples: TIntervalSample[] = [...(byRun.get(r.id) ?? new Map()).entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([elapsed_s, values]) => ({ elapsed_s, values }));
    let summary = getRunSummary(r);
    if (summary.length === 0)
      summary = results
        .filter((x) => x.run_id === r.id)
        .map((x) => ({ name: x.metric, value: x.value, unit: x.unit, direction: x.direction }));
    if (opts.metrics) summary = summary.filter((m) => opts.metrics!.includes(m.name));
    out.set(r.id, { samples, summary });
  }
  return out;
}

/** Drops the first 10% of interval samples (warm-up). */
export function trimWarmup(d: TRunData): TRunData {
  const n = Math.floor(d.samples.length / 10);
  return { samples: d.samples.slice(n), summary: d.summary };
}

/** One baseline out of several runs: trimmed samples concatenated, summary values averaged. */
export function poolRunData(ds: readonly TRunData[]): TRunData {
  const samples = ds.flatMap((d) => trimWarmup(d).samples);
  const acc = new Map<string, { m: TMetric; sum: number; n: number }>();
  for (const d of ds)
    for (const m of d.summary) {
      const a = acc.get(m.name);
      if (a) {
        a.sum += m.value;
        a.n++;
      } else acc.set(m.name, { m, sum: m.value, n: 1 });
    }
  return { samples, summary: [...acc.values()].map((a) => ({ ...a.m, value: a.sum / a.n })) };
}

export function toMetricVerdict(c: TMetricComparison): TMetricVerdict {
  return {
    metric: c.name,
    unit: c.unit,
    direction: c.direction,
    baseline: c.mean_a,
    value: c.mean_b,
    change_pct: c.change_pct,
    ci95: c.ci95,
    p_value: c.p_value,
    test: c.test,
    verdict: c.verdict,
    source: c.source,
    n_baseline: c.n_a,
    n_value: c.n_b,
    reason: c.reason,
  };
}

/** Run-level verdict from its metric verdicts; an unhealthy environment never counts as a regression. */
export function summarizeVerdicts(
  verdicts: readonly TMetricVerdict[],
  envHealthy: boolean | null,
  hasBaseline: boolean,
): { verdict: TRunVerdict; regression: boolean } {
  if (envHealthy === false) return { verdict: 'unhealthy_env', regression: false };
  if (!hasBaseline) return { verdict: 'no_baseline', regression: false };
  const regressed = verdicts.some((v) => v.verdict === 'regression');
  if (regressed) return { verdict: 'regression', regression: true };
  if (verdicts.some((v) => v.verdict === 'improvement')) return { verdict: 'improvement', regression: false };
  return { verdict: 'noise', regression: false };
}

/** Baseline branch of a workload: the branch of its thresholds, else main. */
async function getBaselineBranch(deps: TDeps, orgId: string, workloadId: string | null): Promise<string> {
  if (!workloadId) return DEFAULT_BASELINE_BRANCH;
  const ts = await listThresholds(deps.db, orgId, workloadId);
  return ts[0]?.branch ?? DEFAULT_BASELINE_BRANCH;
}

async function findBranchBaseline(
  deps: TDeps,
  caller: TCaller,
  run: TRunRow,
  branch: string,
): Promise<TRunRow[]> {
  return findBaselineRuns(deps.db, caller.orgId, {
    clusterId: boundClusterOf(caller),
    workloadId: run.workloadId,
    tool: run.tool,
    toolWorkload: run.toolWorkload,
    branch,
    before: run.startedAt,
    excludeId: run.id,
    limit: BASELINE_POOL,
  });
}

function compareData(base: TRunData, run: TRunData, resamples?: number) {
  return compareRuns(base, trimWarmup(run), { warmup: 0, ...(resamples ? { resamples } : {}) }).map(
    toMetricVerdict,
  );
}

/**
 * Compares a run with a baseline: `baseline` is a run id, or a branch name (default: the workload's
 * threshold branch, else main). A branch baseline pools the interval samples of the latest
 * BASELINE_POOL succeeded runs of the same workload on that branch that started before the run
 * (env-unhealthy runs skipped), each with its first 10% dropped as warm-up.
 */
export async function compareRunWithBaseline(
  deps: TDeps,
  caller: TCaller,
  runId: string,
  baseline?: string,
): Promise<TRunComparison> {
  assertCan(caller, { run: ['read'] });
  const run: TRunRow = await loadRun(deps, caller, runId);
  let kind: 'run' | 'branch' = 'branch';
  let branch: string | null = null;
  let baseRuns: TRunRow[];
  const asRun = baseline ? (await loadRuns(deps, caller, [baseline]))[0] : undefined;
  if (asRun) {
    if (asRun.id === run.id) throw new AppError('BAD_REQUEST', 'baseline: a run cannot be its own baseline');
    kind = 'run';
    baseRuns = [asRun];
  } else {
    branch = baseline ?? (await getBaselineBranch(deps, caller.orgId, run.workloadId));
    baseRuns = await findBranchBaseline(deps, caller, run, branch);
  }
  const data = await loadRunData(deps, caller.orgId, [run, ...baseRuns]);
  const verdicts = baseRuns.length
    ? compareData(
        kind === 'run'
          ? trimWarmup(data.get(baseRuns[0].id)!)
          : poolRunData(baseRuns.map((r) => data.get(r.id)!)),
        data.get(run.id)!,
      )
    : [];
  const env = run.env as { reasons?: unknown } | null;
  return {
    run_id: run.id,
    baseline: { kind, ref: baseline ?? branch ?? '', branch, run_ids: baseRuns.map((r) => r.id) },
    verdicts,
    envHealthy: run.envHealthy,
    env_reasons: Array.isArray(env?.reasons) ? env.reasons.map(String) : [],
    ...summarizeVerdicts(verdicts, run.envHealthy, baseRuns.length > 0),
  };
}

/** Parses `a,b,c` or an array into 2–8 distinct run ids. */
export function parseRunIds(input: string | readonly string[]): string[] {
  const ids = (typeof input === 'string' ? input.split(',') : [...input])
    .map((s) => s.trim())
    .filter(Boolean);
  const uniq = [...new Set(ids)];
  if (uniq.length < 2 || uniq.length > 8)
    throw new AppError('BAD_REQUEST', `runs: give 2 to 8 distinct run ids, got ${uniq.length}`);
  return uniq;
}

/** 2–8 runs; the first is the baseline. Each other run is compared with it metric by metric. */
export async function compareRunIds(
  deps: TDeps,
  caller: TCaller,
  input: string | readonly string[],
): Promise<TComparison & { samples: Record<string, TIntervalSample[]> }> {
  assertCan(caller, { run: ['read'] });
  const ids = parseRunIds(input);
  const rows = await loadRuns(deps, caller, ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length) throw notFound(`run ${missing.join(', ')}`);
  const runs = ids.map((id) => byId.get(id)!);
  const data = await loadRunData(deps, caller.orgId, runs);
  const base = trimWarmup(data.get(ids[0])!);
  const metrics = new Map<string, TComparison['metrics'][number]>();
  for (const r of runs.slice(1)) {
    for (const v of compareData(base, data.get(r.id)!)) {
      let m = metrics.get(v.metric);
      if (!m)
        metrics.set(
          v.metric,
          (m = { metric: v.metric, unit: v.unit, direction: v.direction, baseline: v.baseline, deltas: [] }),
        );
      m.deltas.push({ ...v, run_id: r.id });
    }
  }
  return {
    runs: runs.map(toRunBrief),
    metrics: [...metrics.values()],
    samples: Object.fromEntries(ids.map((id) => [id, data.get(id)!.samples])),
  };
}

export type TRunListRow = TRunBrief & {
  key: { metric: string; unit: string; value: number | null; spark: number[] }[];
  verdict: TRunVerdict | null;
  verdictReason: string;
};

/** Resolves list filters to a repository query; an unknown cluster yields null (no rows). */
export async function toRunQuery(deps: TDeps, caller: TCaller, filter: TRunFilter) {
  const parsed = ZRunFilter.safeParse(filter);
  if (!parsed.success)
    throw new AppError(
      'BAD_REQUEST',
      parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    );
  const f = parsed.data;
  const date = (s: string | undefined, endOfDay: boolean) =>
    s ? new Date(parseDay(s, endOfDay)) : undefined;
  let clusterId = boundClusterOf(caller);
  if (f.cluster) {
    try {
      clusterId = (await resolveCluster(deps, caller, f.cluster)).id;
    } catch {
      return null;
    }
  }
  const [labelKey, ...rest] = f.label ? f.label.split('=') : [];
  return {
    clusterId,
    workload: f.workload,
    tool: f.tool,
    branch: f.branch,
    labelKey: labelKey || undefined,
    labelValue: rest.length ? rest.join('=') : undefined,
    status: f.status as RunStatus | undefined,
    from: date(f.from, false),
    to: date(f.to, true),
    limit: f.limit,
    offset: f.offset,
  };
}

/** Runs matching the filters, newest first (no verdicts). */
export async function findRunRows(deps: TDeps, caller: TCaller, filter: TRunFilter) {
  assertCan(caller, { run: ['read'] });
  const q = await toRunQuery(deps, caller, filter);
  return q ? searchRuns(deps.db, caller.orgId, q) : [];
}

function pickKeyMetrics(names: Set<string>): string[] {
  const t = THROUGHPUT.find((m) => names.has(m));
  const l = LATENCY.find((m) => names.has(m));
  return [t, l].filter((x): x is string => !!x);
}

/** Run list rows: key metrics with sparkline series and a verdict against the run's baseline. */
export async function listRunsWithVerdicts(
  deps: TDeps,
  caller: TCaller,
  filter: TRunFilter,
): Promise<TRunListRow[]> {
  const rows = await findRunRows(deps, caller, filter);
  const keys = [...THROUGHPUT, ...LATENCY];
  const branchOf = new Map<string | null, Promise<string>>();
  const baselines = await Promise.all(
    rows.map(async (r) => {
      if (r.status !== 'succeeded' || r.envHealthy === false) return [];
      if (!branchOf.has(r.workloadId))
        branchOf.set(r.workloadId, getBaselineBranch(deps, caller.orgId, r.workloadId));
      return findBranchBaseline(deps, caller, r, await branchOf.get(r.workloadId)!);
    }),
  );
  const all = new Map<string, TRunRow>();
  for (const r of [...rows, ...baselines.flat()]) all.set(r.id, r);
  const data = await loadRunData(deps, caller.orgId, [...all.values()], { metrics: keys });
  return rows.map((r, i) => {
    const d = data.get(r.id)!;
    const names = new Set([
      ...d.samples.flatMap((s) => Object.keys(s.values)),
      ...d.summary.map((m) => m.name),
    ]);
    const key = pickKeyMetrics(names).map((metric) => {
      const s = d.summary.find((m) => m.name === metric);
      const spark = d.samples.map((x) => x.values[metric]).filter((v): v is number => v !== undefined);
      const value = s?.value ?? (spark.length ? spark.reduce((a, b) => a + b, 0) / spark.length : null);
      return { metric, unit: s?.unit ?? getMetricInfo(metric)?.unit ?? '', value, spark };
    });
    let verdict: TRunVerdict | null = null;
    let verdictReason = '';
    if (r.status === 'succeeded') {
      if (r.envHealthy === false) {
        verdict = 'unhealthy_env';
        verdictReason = 'environment unhealthy during the run';
      } else if (baselines[i].length === 0) {
        verdict = 'no_baseline';
        verdictReason = 'no earlier succeeded run on the baseline branch';
      } else {
        const base = poolRunData(baselines[i].map((b) => data.get(b.id)!));
        const wanted = new Set(key.map((k) => k.metric));
        const vs = compareData(base, d, 500).filter((v) => wanted.has(v.metric));
        verdict = summarizeVerdicts(vs, r.envHealthy, true).verdict;
        verdictReason = vs
          .map(
            (v) =>
              `${v.metric}: ${v.verdict}${v.change_pct === null ? '' : ` (${v.change_pct.toFixed(1)}%)`}`,
          )
          .join('; ');
      }
    }
    return { ...toRunBrief(r), key, verdict, verdictReason };
  });
}

/** One run for its page: brief, params, git, summary with units and interval series by metric. */
export async function getRunDetail(deps: TDeps, caller: TCaller, id: string) {
  assertCan(caller, { run: ['read'] });
  const run: TRunRow = await loadRun(deps, caller, id);
  const data = (await loadRunData(deps, caller.orgId, [run])).get(run.id)!;
  const series: Record<string, [number, number][]> = {};
  for (const s of data.samples)
    for (const [k, v] of Object.entries(s.values)) (series[k] ??= []).push([s.elapsed_s, v]);
  return {
    ...toRunBrief(run),
    gitRepo: run.gitRepo,
    params: run.params as Record<string, unknown>,
    exitCode: run.exitCode,
    error: run.error,
    warnings: run.warnings,
    hasRawOutput: !!run.rawOutput,
    rawOutputBytes: run.rawOutput ? Buffer.byteLength(run.rawOutput) : 0,
    summary: data.summary.map((m) => ({ ...m, label: getMetricInfo(m.name)?.label ?? m.name })),
    series,
    direction: Object.fromEntries(Object.keys(series).map((k) => [k, directionOf(k)])),
  };
}
