import {
  compareRuns,
  getMetricKind,
  getSampleSummary,
  getMetricInfo,
  directionOf,
  type TMetricComparison,
  type TRunData,
} from '@clusterscope/bench';
import { findBaselineRuns, listThresholds, type RunStatus, type TRunQuery } from '@clusterscope/db';
import {
  ALPHA,
  DASHBOARD_LANE,
  DEFAULT_BASELINE_BRANCH,
  DEFAULT_BASELINE_WINDOW,
  MIN_EFFECT_PCT,
  VERDICT_RULE,
  describeMachineMismatch,
  ZRunComparison,
  ZRunFilter,
  parseDay,
  summarizeEvidence,
  type TBaselineRef,
  type TDirection,
  type TComparison,
  type TIntervalSample,
  type TMetric,
  type TMetricVerdict,
  type TRunComparison,
  type TRunJudged,
  type TRunListRow,
  type TRunPageView,
  type TRunView,
  type TComparisonView,
  type TRunFilter,
  type TRunVerdict,
  type TThreshold,
} from '@clusterscope/schema';
import { getBenchResults, getBenchSamples } from '@clusterscope/tsdb';
import type { TDeps } from '../core/deps';
import { assertCan, type TCaller } from '../tenancy/caller';
import { resolveCluster } from '../tenancy/clusters';
import {
  boundClusterOf,
  getRunSummary,
  loadRun,
  loadRuns,
  queryRuns,
  toRunBrief,
  type TRunRow,
} from '../tenancy/access';
import { AppError, notFound } from '../core/errors';
import { computeRunEnvironment } from './environment';
import {
  applyThresholds,
  decideRunVerdict,
  findMismatch,
  nameBaseline,
  parseBranchRef,
  type TBaselineSpec,
} from './verdict';

/** Throughput metrics in order of preference for the run list's key metric. */
const THROUGHPUT = ['tps', 'ops_per_s', 'qps', 'rps', 'events_per_s', 'tpmC', 'read_iops', 'write_iops'];
const LATENCY = ['lat_p95_ms', 'lat_p99_ms', 'lat_avg_ms', 'lat_p50_ms'];

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

export type TMetricValue = { value: number; unit: string; direction: TDirection };

/**
 * A run's value per metric, the one every page, alert and verdict shows: its stored summary value; for a
 * metric without one (older runs), the mean of its interval samples after the 10% warm-up when ≥ 5
 * remain, else of all of them (getSampleSummary, the rule ingest applies once).
 */
export function getRunValues(d: TRunData): Map<string, TMetricValue> {
  const out = new Map<string, TMetricValue>();
  for (const m of getSampleSummary(d.samples))
    out.set(m.name, { value: m.value, unit: m.unit, direction: m.direction });
  for (const m of d.summary) out.set(m.name, { value: m.value, unit: m.unit, direction: m.direction });
  return out;
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
    kind: c.kind,
    evidence: c.evidence,
    judged: c.judged,
    verdict: c.verdict,
    source: c.source,
    n_baseline: c.n_a,
    n_value: c.n_b,
    reason: c.reason,
  };
}

/** Longest branch window pooled for a verdict (a threshold may ask for up to 1000 runs). */
const MAX_POOL = 50;

type TBranchSpec = { branch: string; window: number; after?: Date | null };

/**
 * A workload's default baseline: the branch and the longest window of its thresholds (which judge their
 * metrics in every verdict), else main, last 3 runs; it starts at the workload's baseline reset (an alert
 * triaged "expected").
 */
export async function getDefaultBaseline(
  deps: TDeps,
  orgId: string,
  run: Pick<TRunRow, 'workloadId' | 'workload'>,
): Promise<TBranchSpec & { thresholds: TThreshold[] }> {
  const rows = run.workloadId ? await listThresholds(deps.db, orgId, run.workloadId) : [];
  const thresholds = rows.map((t) => ({ ...t, test: t.test as TThreshold['test'] }));
  const after = run.workload?.baselineFrom ?? null;
  if (!thresholds[0])
    return { branch: DEFAULT_BASELINE_BRANCH, window: DEFAULT_BASELINE_WINDOW, after, thresholds };
  const branch = thresholds[0].branch;
  const window = Math.max(...thresholds.filter((t) => t.branch === branch).map((t) => t.windowSize));
  return {
    branch,
    window: Math.min(MAX_POOL, window),
    after,
    thresholds: thresholds.filter((t) => t.branch === branch),
  };
}

/** A run Clusterscope queued on an agent without a git branch: its default baseline is the dashboard lane. */
export const isDashboardRun = (run: Pick<TRunRow, 'gitBranch' | 'queuedAt'>): boolean =>
  !run.gitBranch && run.queuedAt !== null;

/** The default baseline of one run: the workload's, or the dashboard lane for a dashboard run. */
function getRunDefault<T extends TBranchSpec & { thresholds: TThreshold[] }>(run: TRunRow, def: T): T {
  // The workload's thresholds are set on its branches, not on the lane: lane runs get the default tests.
  return isDashboardRun(run) ? { ...def, branch: DASHBOARD_LANE, thresholds: [] } : def;
}

/** The build change that started a run (labels set by the change pass), or null. */
export function getRunChange(run: Pick<TRunRow, 'labels'>): { from: string; to: string; at: string } | null {
  const l = (run.labels ?? {}) as Record<string, unknown>;
  return typeof l.change_at === 'string' &&
    typeof l.change_from === 'string' &&
    typeof l.change_to === 'string'
    ? { from: l.change_from, to: l.change_to, at: l.change_at }
    : null;
}

const changeStart = (run: TRunRow): Date | null => {
  const c = getRunChange(run);
  return c ? new Date(c.at) : null;
};

async function findBranchBaseline(
  deps: TDeps,
  caller: TCaller,
  run: TRunRow,
  spec: TBranchSpec,
): Promise<TRunRow[]> {
  const lane = spec.branch === DASHBOARD_LANE;
  const q = {
    // The lane is per cluster: a dashboard run measures the cluster it ran on.
    clusterId: boundClusterOf(caller) ?? (lane ? (run.clusterId ?? undefined) : undefined),
    workloadId: run.workloadId,
    tool: run.tool,
    toolWorkload: run.toolWorkload,
    branch: lane ? null : spec.branch,
    // A run started by a build change is compared with the runs before that change.
    before: (lane && changeStart(run)) || run.startedAt,
    after: spec.after,
    excludeId: run.id,
    limit: spec.window,
  };
  // Runs on the run's kind of machine first; without any, every machine's (the comparison then warns).
  if (run.machineKind) {
    const same = await findBaselineRuns(deps.db, caller.orgId, { ...q, machineKind: run.machineKind });
    if (same.length) return same;
  }
  return findBaselineRuns(deps.db, caller.orgId, q);
}

/** The cross-machine warning of a run compared with `baseRuns` (null when all ran on its kind of machine). */
function warnMachines(run: TRunRow, baseRuns: readonly TRunRow[], branch: boolean): string | null {
  const kinds = baseRuns.map((r) => r.machineKind);
  const fellBack = branch && run.machineKind !== null && !kinds.includes(run.machineKind);
  return describeMachineMismatch(run.machineKind, kinds, fellBack);
}

/**
 * findBranchBaseline for many runs with one query per series (workload or tool, branch, window) instead
 * of one per run: the window + n newest runs before the series' newest listed run. A run whose window
 * that read cannot fill (older runs exist beyond it) gets its own query, so the result is the same.
 */
async function findBranchBaselines(
  deps: TDeps,
  caller: TCaller,
  items: readonly { run: TRunRow; spec: TBranchSpec }[],
): Promise<Map<string, TRunRow[]>> {
  const groups = new Map<string, (typeof items)[number][]>();
  for (const it of items) {
    const r = it.run;
    const lane = it.spec.branch === DASHBOARD_LANE ? r.clusterId : null;
    const key = JSON.stringify([
      r.workloadId ?? [r.tool, r.toolWorkload],
      it.spec.branch,
      it.spec.window,
      r.machineKind,
      it.spec.after ?? null,
      lane,
    ]);
    const g = groups.get(key);
    if (g) g.push(it);
    else groups.set(key, [it]);
  }
  const out = new Map<string, TRunRow[]>();
  await Promise.all(
    [...groups.values()].map(async (group) => {
      const newest = group.reduce((a, b) => (b.run.startedAt > a.run.startedAt ? b : a));
      const { window } = newest.spec;
      const limit = window + group.length;
      const pool = await findBranchBaseline(deps, caller, newest.run, { ...newest.spec, window: limit });
      await Promise.all(
        group.map(async ({ run, spec }) => {
          if (changeStart(run)) return out.set(run.id, await findBranchBaseline(deps, caller, run, spec));
          const before = pool.filter((x) => x.startedAt < run.startedAt);
          // The pool is the newest `limit` runs before `newest`: complete below a run if it was not full.
          // A run with none of its machine kind before it falls back to every machine's on its own.
          const runs =
            (before.length >= window || pool.length < limit) && (before.length > 0 || !run.machineKind)
              ? before.slice(0, window)
              : await findBranchBaseline(deps, caller, run, spec);
          out.set(run.id, runs);
        }),
      );
    }),
  );
  return out;
}

/**
 * How a verdict is asked for: `verdictMetrics` (CLI `--verdict-metrics`) overrides the workload's;
 * `thresholds` (the workload's, with its default baseline) judge their metrics.
 */
export type TJudgeOptions = {
  verdictMetrics?: readonly string[];
  thresholds?: readonly TThreshold[];
  /** The minimum effect (default MIN_EFFECT_PCT; SCREEN_EFFECT_PCT while confirmation runs follow). */
  minEffectPct?: number;
};

/** Each metric's stored value in each baseline run (the history test's input). */
function getHistory(baseRuns: readonly TRunData[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const d of baseRuns) for (const m of d.summary) (out[m.name] ??= []).push(m.value);
  return out;
}

function compareData(
  baseRuns: readonly TRunData[],
  run: TRunData,
  verdictMetrics: readonly string[],
  minEffectPct = MIN_EFFECT_PCT,
) {
  return compareRuns(poolRunData(baseRuns), trimWarmup(run), {
    warmup: 0,
    alpha: ALPHA,
    minEffectPct,
    verdictMetrics,
    history: getHistory(baseRuns),
  }).map(toMetricVerdict);
}

/**
 * THE verdict of a run against its resolved baseline runs (pure given the loaded data). Every page, the
 * CLI and REST compare get their run verdict from here.
 */
export function judgeRun(
  run: TRunRow,
  baseRuns: readonly TRunRow[],
  data: ReadonlyMap<string, TRunData>,
  opts: TJudgeOptions = {},
): {
  verdicts: TMetricVerdict[];
  verdict: TRunVerdict;
  regression: boolean;
  reason: string;
  warning: string | null;
} {
  const warning = findMismatch(run, baseRuns);
  const base = baseRuns.map((r) => data.get(r.id)!);
  let verdicts =
    baseRuns.length && !warning
      ? compareData(
          base,
          data.get(run.id)!,
          opts.verdictMetrics?.length ? opts.verdictMetrics : (run.workload?.verdictMetrics ?? []),
          opts.minEffectPct,
        )
      : [];
  if (opts.thresholds?.length && verdicts.length)
    verdicts = applyThresholds(verdicts, opts.thresholds, base.map(getRunValues));
  const v = decideRunVerdict({
    verdicts,
    envHealthy: run.envHealthy,
    baselineRuns: baseRuns.length,
    mismatch: warning,
    minEffectPct: opts.minEffectPct,
  });
  return { verdicts, ...v, warning };
}

type TResolved = {
  spec: TBaselineSpec;
  ref: string;
  runs: TRunRow[];
  thresholds?: TThreshold[];
  change?: TBaselineRef['change'];
};

/** A baseline ref (run id, `branch` or `branch:N`; default: the workload's) resolved for one run. */
async function resolveBaseline(
  deps: TDeps,
  caller: TCaller,
  run: TRunRow,
  baseline?: string,
): Promise<TResolved> {
  const asRun = baseline ? (await loadRuns(deps, caller, [baseline]))[0] : undefined;
  if (asRun) {
    if (asRun.id === run.id) throw new AppError('BAD_REQUEST', 'baseline: a run cannot be its own baseline');
    return { spec: { kind: 'run', runId: asRun.id }, ref: asRun.id, runs: [asRun] };
  }
  const def = getRunDefault(run, await getDefaultBaseline(deps, caller.orgId, run));
  const parsed = baseline ? parseBranchRef(baseline) : null;
  const spec = {
    kind: 'branch' as const,
    branch: parsed?.branch ?? def.branch,
    window: Math.min(MAX_POOL, parsed?.window ?? def.window),
  };
  // The workload's own baseline (no ref, or its branch) carries its reset and thresholds.
  const own = !parsed || (parsed.branch === def.branch && parsed.window === null);
  const runs = await findBranchBaseline(deps, caller, run, { ...spec, after: own ? def.after : null });
  const change = spec.branch === DASHBOARD_LANE ? getRunChange(run) : null;
  return { spec, ref: baseline ?? spec.branch, runs, thresholds: own ? def.thresholds : undefined, change };
}

function toBaselineRef(b: TResolved): TBaselineRef {
  return {
    kind: b.spec.kind,
    ref: b.ref,
    name: nameBaseline(b.spec, b.spec.kind === 'branch' ? b.runs.length : undefined),
    branch: b.spec.kind === 'branch' ? b.spec.branch : null,
    window: b.spec.kind === 'branch' ? b.spec.window : null,
    run_ids: b.runs.map((r) => r.id),
    lane: b.spec.kind === 'branch' && b.spec.branch === DASHBOARD_LANE,
    change: b.change ?? null,
  };
}

/**
 * Compares a run with a baseline: `baseline` is a run id, a branch, or `branch:N` (default: the
 * workload's first threshold branch and window, else main, last 3 runs). A branch baseline pools the
 * interval samples of the latest N succeeded runs of the same workload on that branch that started before
 * the run (env-unhealthy runs skipped), each with its first 10% dropped as warm-up.
 */
export async function compareRunWithBaseline(
  deps: TDeps,
  caller: TCaller,
  runId: string,
  baseline?: string,
  opts: TJudgeOptions = {},
): Promise<TRunComparison> {
  assertCan(caller, { run: ['read'] });
  const run: TRunRow = await loadRun(deps, caller, runId);
  if (!baseline && !opts.verdictMetrics?.length) {
    const stored = await readEvaluation(deps, caller, run);
    if (stored) return stored;
  }
  const b = await resolveBaseline(deps, caller, run, baseline);
  return toComparison(run, b, await loadRunData(deps, caller.orgId, [run, ...b.runs]), opts);
}

/** A stored evaluation (evaluation.ts) parsed, or null when absent or of an older shape. */
export function parseEvaluation(run: Pick<TRunRow, 'evaluation'>): TRunComparison | null {
  if (!run.evaluation) return null;
  const p = ZRunComparison.safeParse(run.evaluation);
  return p.success ? p.data : null;
}

/**
 * The run's one stored evaluation, what every page, the report and the CLI read when no other baseline
 * is asked for. A token bound to one cluster reads it only when all its baseline runs are on that
 * cluster; otherwise it is judged against that cluster's runs.
 */
export async function readEvaluation(
  deps: TDeps,
  caller: TCaller,
  run: TRunRow,
): Promise<TRunComparison | null> {
  const e = parseEvaluation(run);
  if (!e) return null;
  if (boundClusterOf(caller) && e.baseline.run_ids.length) {
    const visible = await loadRuns(deps, caller, e.baseline.run_ids);
    if (visible.length !== new Set(e.baseline.run_ids).size) return null;
  }
  return e;
}

type TBaseline = Awaited<ReturnType<typeof resolveBaseline>>;

function toComparison(
  run: TRunRow,
  b: TBaseline,
  data: Map<string, TRunData>,
  opts: TJudgeOptions = {},
): TRunComparison {
  const j = judgeRun(run, b.runs, data, { ...opts, thresholds: opts.thresholds ?? b.thresholds });
  const env = run.env as { reasons?: unknown } | null;
  return {
    run_id: run.id,
    baseline: toBaselineRef(b),
    verdicts: j.verdicts,
    envHealthy: run.envHealthy,
    env_reasons: Array.isArray(env?.reasons) ? env.reasons.map(String) : [],
    verdict: j.verdict,
    regression: j.regression,
    reason: j.reason,
    rule: VERDICT_RULE,
    warning: j.warning,
    machine_warning: warnMachines(run, b.runs, b.spec.kind === 'branch'),
    confirmation: null,
    confirms: run.confirmsRunId,
  };
}

/** The evaluation of a run against its workload's baseline and thresholds (stored at finish). */
export async function evaluateRunLive(
  deps: TDeps,
  caller: TCaller,
  run: TRunRow,
  opts: Pick<TJudgeOptions, 'minEffectPct'> = {},
): Promise<TRunComparison> {
  const b = await resolveBaseline(deps, caller, run);
  return toComparison(run, b, await loadRunData(deps, caller.orgId, [run, ...b.runs]), opts);
}

/** The evaluation of a run against given baseline runs (a confirmation run against its suspect's). */
export async function evaluateRunAgainst(
  deps: TDeps,
  caller: TCaller,
  run: TRunRow,
  like: TRunComparison,
  opts: Pick<TJudgeOptions, 'minEffectPct'> = {},
): Promise<TRunComparison> {
  const runs = await loadRuns(deps, caller, like.baseline.run_ids);
  const order = new Map(like.baseline.run_ids.map((id, i) => [id, i]));
  runs.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const spec: TBaselineSpec =
    like.baseline.kind === 'run'
      ? { kind: 'run', runId: like.baseline.ref }
      : { kind: 'branch', branch: like.baseline.branch ?? '', window: like.baseline.window ?? runs.length };
  const def = await getDefaultBaseline(deps, caller.orgId, run);
  const b: TResolved = { spec, ref: like.baseline.ref, runs, thresholds: def.thresholds };
  return toComparison(run, b, await loadRunData(deps, caller.orgId, [run, ...runs]), opts);
}

/**
 * The run page in one call: the run, its comparison with `baseline` and the environment during it. The run
 * is loaded (and its org and bound cluster checked) once, and its results and samples read once.
 */
export async function getRunPage(
  deps: TDeps,
  caller: TCaller,
  id: string,
  baseline?: string,
): Promise<TRunPageView> {
  assertCan(caller, { run: ['read'], cluster: ['read'] });
  const run: TRunRow = await loadRun(deps, caller, id);
  const stored = baseline ? null : await readEvaluation(deps, caller, run);
  // The environment (ClickHouse) is read while the baseline is resolved (PostgreSQL), not after.
  const [[b, data], environment] = await Promise.all([
    stored
      ? loadRunData(deps, caller.orgId, [run]).then((data) => [null, data] as const)
      : resolveBaseline(deps, caller, run, baseline).then(
          async (b) => [b, await loadRunData(deps, caller.orgId, [run, ...b.runs])] as const,
        ),
    computeRunEnvironment(deps, caller.orgId, run),
  ]);
  return { run: toRunView(run, data), comparison: stored ?? toComparison(run, b!, data), environment };
}

/** Parses `a,b,c` or an array into `min`–8 distinct run ids. */
export function parseRunIds(input: string | readonly string[], min = 2): string[] {
  const ids = (typeof input === 'string' ? input.split(',') : [...input])
    .map((s) => s.trim())
    .filter(Boolean);
  const uniq = [...new Set(ids)];
  if (uniq.length < min || uniq.length > 8)
    throw new AppError('BAD_REQUEST', `runs: give ${min} to 8 distinct run ids, got ${uniq.length}`);
  return uniq;
}

/**
 * 2–8 runs, the first is the baseline; or, with `baseline` (a branch, `branch:N` or run id), 1–8 runs
 * compared with that baseline resolved for the first run (its runs come first in `runs`). Each compared
 * run gets metric deltas and its run verdict from judgeRun.
 */
export async function compareRunIds(
  deps: TDeps,
  caller: TCaller,
  input: string | readonly string[],
  baseline?: string,
): Promise<TComparisonView> {
  assertCan(caller, { run: ['read'] });
  const ids = parseRunIds(input, baseline ? 1 : 2);
  const rows = await loadRuns(deps, caller, ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length) throw notFound(`run ${missing.join(', ')}`);
  const given = ids.map((id) => byId.get(id)!);
  let b: TResolved;
  let compared: TRunRow[];
  if (baseline) {
    b = await resolveBaseline(deps, caller, given[0], baseline);
    const inBase = new Set(b.runs.map((r) => r.id));
    compared = given.filter((r) => !inBase.has(r.id));
  } else {
    b = { spec: { kind: 'run', runId: given[0].id }, ref: given[0].id, runs: [given[0]] };
    compared = given.slice(1);
  }
  const runs = [...[...b.runs].reverse(), ...compared];
  const data = await loadRunData(deps, caller.orgId, runs);
  const metrics = new Map<string, TComparison['metrics'][number]>();
  const judgements = compared.map((r) => {
    const j = judgeRun(r, b.runs, data);
    for (const v of j.verdicts) {
      let m = metrics.get(v.metric);
      if (!m)
        metrics.set(
          v.metric,
          (m = { metric: v.metric, unit: v.unit, direction: v.direction, baseline: v.baseline, deltas: [] }),
        );
      m.deltas.push({ ...v, run_id: r.id });
    }
    return {
      run_id: r.id,
      verdict: j.verdict,
      reason: j.reason,
      evidence: summarizeEvidence(j.verdicts),
      warning: j.warning,
      machine_warning: warnMachines(r, b.runs, b.spec.kind === 'branch'),
    };
  });
  return {
    runs: runs.map(toRunBrief),
    baseline: toBaselineRef(b),
    judgements,
    rule: VERDICT_RULE,
    metrics: [...metrics.values()],
    samples: Object.fromEntries(runs.map((r) => [r.id, data.get(r.id)!.samples])),
  };
}

/** Resolves the run list's filters to a run query; an unknown cluster yields null (no rows). */
export async function toRunQuery(
  deps: TDeps,
  caller: TCaller,
  filter: TRunFilter,
): Promise<{ q: TRunQuery; limit: number; offset: number } | null> {
  const parsed = ZRunFilter.safeParse(filter);
  if (!parsed.success)
    throw new AppError(
      'BAD_REQUEST',
      parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    );
  const f = parsed.data;
  let clusterId: string | undefined;
  if (f.cluster) {
    try {
      clusterId = (await resolveCluster(deps, caller, f.cluster)).id;
    } catch {
      return null;
    }
  }
  const [key, ...rest] = f.label ? f.label.split('=') : [];
  return {
    q: {
      clusterId,
      workload: f.workload,
      tool: f.tool,
      branch: f.branch,
      labels: key ? [{ key, value: rest.length ? rest.join('=') : undefined }] : [],
      status: f.status as RunStatus | undefined,
      from: f.from ? new Date(parseDay(f.from)) : undefined,
      // `to` is inclusive (a day means its end); the query's bound is exclusive.
      to: f.to ? new Date(parseDay(f.to, true) + 1) : undefined,
    },
    limit: f.limit,
    offset: f.offset,
  };
}

/** Runs matching the filters, newest first (no verdicts). */
export async function findRunRows(deps: TDeps, caller: TCaller, filter: TRunFilter): Promise<TRunRow[]> {
  assertCan(caller, { run: ['read'] });
  const r = await toRunQuery(deps, caller, filter);
  return r ? (await queryRuns(deps, caller, r.q, { limit: r.limit, offset: r.offset })).items : [];
}

/** The run list's key metrics: the preferred throughput, then the preferred latency, of those present. */
export function pickKeyMetrics(names: Set<string>): string[] {
  const t = THROUGHPUT.find((m) => names.has(m));
  const l = LATENCY.find((m) => names.has(m));
  return [t, l].filter((x): x is string => !!x);
}

/**
 * Verdicts of many runs, each against its workload's default baseline (one batched data load); the runs
 * list and the workload page's alerts use it. Runs that did not succeed get none. `data` receives the
 * loaded run data (for callers that need more from it).
 */
export async function judgeRunsByDefault(
  deps: TDeps,
  caller: TCaller,
  rows: readonly TRunRow[],
  data: Map<string, TRunData> = new Map(),
): Promise<Map<string, TRunJudged>> {
  const out = new Map<string, TRunJudged>();
  const stored = await Promise.all(
    rows.map((r) => (r.status === 'succeeded' ? readEvaluation(deps, caller, r) : null)),
  );
  rows.forEach((r, i) => {
    const e = stored[i];
    if (e)
      out.set(r.id, {
        verdict: e.verdict,
        reason: e.reason,
        evidence: summarizeEvidence(e.verdicts),
        warning: e.warning,
        baselineName: e.baseline.name,
        confirmation: e.confirmation?.state ?? 'none',
      });
  });
  const defaults = new Map<string | null, ReturnType<typeof getDefaultBaseline>>();
  const specs = await Promise.all(
    rows.map(async (r) => {
      if (r.status !== 'succeeded' || out.has(r.id)) return null;
      if (!defaults.has(r.workloadId)) defaults.set(r.workloadId, getDefaultBaseline(deps, caller.orgId, r));
      return { kind: 'branch' as const, ...getRunDefault(r, await defaults.get(r.workloadId)!) };
    }),
  );
  const found = await findBranchBaselines(
    deps,
    caller,
    // Unhealthy-env runs too: their verdict says so, and the baseline named is the one their page names.
    rows.flatMap((r, i) => (specs[i] ? [{ run: r, spec: specs[i] }] : [])),
  );
  const baselines = rows.map((r, i) => {
    const spec = specs[i];
    return spec ? { spec, runs: found.get(r.id) ?? [] } : null;
  });
  const all = new Map<string, TRunRow>();
  for (const r of [...rows, ...baselines.flatMap((b) => b?.runs ?? [])]) all.set(r.id, r);
  const need = [...all.values()].filter((r) => !data.has(r.id));
  for (const [id, d] of await loadRunData(deps, caller.orgId, need)) data.set(id, d);
  rows.forEach((r, i) => {
    const b = baselines[i];
    if (!b) return;
    const j = judgeRun(r, b.runs, data, { thresholds: b.spec.thresholds });
    out.set(r.id, {
      verdict: j.verdict,
      reason: j.reason,
      evidence: summarizeEvidence(j.verdicts),
      warning: j.warning,
      baselineName: nameBaseline(b.spec, b.runs.length),
      confirmation: 'none',
    });
  });
  return out;
}

/** Run list rows: key metrics with sparkline series and the run verdict against its default baseline. */
export async function toRunListRows(
  deps: TDeps,
  caller: TCaller,
  rows: readonly TRunRow[],
): Promise<TRunListRow[]> {
  const data = await loadRunData(deps, caller.orgId, rows);
  const judged = await judgeRunsByDefault(deps, caller, rows, data);
  return rows.map((r) => {
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
    const j = judged.get(r.id);
    return {
      ...toRunBrief(r),
      key,
      verdict: j?.verdict ?? null,
      verdictReason: j?.reason ?? '',
      verdictEvidence: j?.evidence ?? '',
      baselineName: j?.baselineName ?? null,
      confirmation: j?.confirmation ?? 'none',
    };
  });
}

const RATE_PAIRS: [string, string][] = [
  ['ops', 'ops_per_s'],
  ['transactions', 'tps'],
  ['requests', 'rps'],
];

/**
 * How long a run took: the wall clock (start → finish) when it is at least a second; else what its output
 * implies (a submitted run is created and finished in one go): the tool's own duration, the span of its
 * interval samples, or a count over its rate (ops ÷ ops/s). null while running or when nothing says.
 */
export function getRunDuration(
  run: { startedAt: Date; finishedAt: Date | null },
  d: TRunData,
): { seconds: number; source: 'clock' | 'output' } | null {
  const clock = run.finishedAt ? (run.finishedAt.getTime() - run.startedAt.getTime()) / 1000 : null;
  if (clock !== null && clock >= 1) return { seconds: clock, source: 'clock' };
  const value = (n: string) => d.summary.find((m) => m.name === n)?.value;
  const own = value('duration_s');
  if (own !== undefined && own > 0) return { seconds: own, source: 'output' };
  const span = d.samples.length ? Math.max(...d.samples.map((s) => s.elapsed_s)) : 0;
  if (span > 0) return { seconds: span, source: 'output' };
  for (const [count, rate] of RATE_PAIRS) {
    const c = value(count);
    const r = value(rate);
    if (c !== undefined && r !== undefined && c > 0 && r > 0) return { seconds: c / r, source: 'output' };
  }
  return clock === null ? null : { seconds: clock, source: 'clock' };
}

/** One run for its page: brief, params, git, summary with units and interval series by metric. */
export async function getRunDetail(deps: TDeps, caller: TCaller, id: string): Promise<TRunView> {
  assertCan(caller, { run: ['read'] });
  const run: TRunRow = await loadRun(deps, caller, id);
  return toRunView(run, await loadRunData(deps, caller.orgId, [run]));
}

/**
 * Interval samples as one series per metric with a point for every sample: an interval without that
 * metric (a stalled second has a rate of 0 but no latency) is null, so charts draw a gap there.
 */
export function toSampleSeries(
  samples: readonly TIntervalSample[],
): Record<string, [number, number | null][]> {
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.values)))];
  return Object.fromEntries(
    names.map((k) => [k, samples.map((s): [number, number | null] => [s.elapsed_s, s.values[k] ?? null])]),
  );
}

function toRunView(run: TRunRow, all: Map<string, TRunData>): TRunView {
  const data = all.get(run.id)!;
  const series = toSampleSeries(data.samples);
  return {
    ...toRunBrief(run),
    gitRepo: run.gitRepo,
    params: run.params as Record<string, unknown>,
    exitCode: run.exitCode,
    error: run.error,
    warnings: run.warnings,
    hasRawOutput: !!run.rawOutput,
    rawOutputBytes: run.rawOutput ? Buffer.byteLength(run.rawOutput) : 0,
    summary: data.summary.map((m) => ({
      ...m,
      label: getMetricInfo(m.name)?.label ?? m.name,
      kind: getMetricKind(m.name),
    })),
    series,
    direction: Object.fromEntries(Object.keys(series).map((k) => [k, directionOf(k)])),
    duration: getRunDuration(run, data),
  };
}
