/**
 * A run's one evaluation, made when it finishes and stored on the run: its verdicts against the workload's
 * baseline and thresholds (compare.ts), the regression alerts they raise, and the confirmation of a
 * suspected regression. The run page, runs list, report, CLI exit code and alerts all read it.
 */
import {
  createRegressionAlert,
  findConfirmationRuns,
  findRunsByIds,
  listSuspectedAlerts,
  markConfirmationRun,
  settleRegressionAlert,
  storeRunEvaluation,
} from '@clusterscope/db';
import { judgeConfirmationMean } from '@clusterscope/bench';
import {
  CONFIRM_RULE,
  EVIDENCE_WORDS,
  SCREEN_EFFECT_PCT,
  TEST_BADGE,
  type TConfirmation,
  type TMetricVerdict,
  type TRunComparison,
  type TThreshold,
} from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import type { TCaller } from '../tenancy/caller';
import type { TRunRow } from '../tenancy/access';
import { notifyBenchmarkAlert } from '../alerting/deliveries';
import { evaluateRunAgainst, evaluateRunLive, getDefaultBaseline, parseEvaluation } from './compare';
import { formatAlertText } from './verdict';
import { startWorkloadRun } from './workloads';

/** The evaluator acts for the org as a whole (no bound cluster), like the scheduler. */
function actAs(orgId: string, why: string): TCaller {
  return { kind: 'token', tokenId: why, orgId, orgSlug: '', scopes: ['admin'], clusterId: null };
}

/** Every run of a confirmation chain is judged with the screening floor (CONFIRM_RULE). */
const SCREEN = { minEffectPct: SCREEN_EFFECT_PCT };

const pct = (v: number | null) => (v === null ? '' : ` ${v > 0 ? '+' : ''}${v.toFixed(1)}%`);

const regressed = (e: TRunComparison) =>
  e.verdicts.filter((v) => v.judged && v.verdict === 'regression').map((v) => v.metric);

/** Confirmation runs a suspected regression of `run` waits for: its own ask (CLI), else its workload's for agent runs. */
function wantedConfirmations(run: TRunRow): number {
  if (run.confirmRuns !== null) return run.confirmRuns;
  return run.queuedAt && run.workload ? run.workload.confirmRuns : 0;
}

/**
 * Evaluates a finished run once and stores it. A regression raises one alert per regressed metric; when
 * confirmation is asked for, the alerts are `suspected` (nothing notified, no check failed) and, for runs
 * Clusterscope started on an agent, the confirmation runs are queued. A confirmation run is judged against
 * its suspect's baseline and settles the suspect. Returns the stored evaluation (null: not evaluated).
 */
export async function evaluateFinishedRun(
  deps: TDeps,
  orgId: string,
  runId: string,
): Promise<TRunComparison | null> {
  const caller = actAs(orgId, `evaluation:${runId}`);
  const [run] = await findRunsByIds(deps.db, orgId, [runId]);
  if (!run) return null;
  if (run.confirmsRunId) {
    const [suspect] = await findRunsByIds(deps.db, orgId, [run.confirmsRunId]);
    const like = suspect ? parseEvaluation(suspect) : null;
    let e: TRunComparison | null = null;
    if (run.status === 'succeeded') {
      e = like
        ? await evaluateRunAgainst(deps, caller, run, like, SCREEN)
        : await evaluateRunLive(deps, caller, run, SCREEN);
      await storeRunEvaluation(deps.db, orgId, run.id, e);
    }
    if (suspect) await settleConfirmation(deps, orgId, suspect.id);
    return e;
  }
  if (run.status !== 'succeeded') return null;
  let wanted = wantedConfirmations(run);
  const e = await evaluateRunLive(deps, caller, run, wanted > 0 ? SCREEN : {});
  const metrics = e.regression ? regressed(e) : [];
  if (!metrics.length) {
    await storeRunEvaluation(deps.db, orgId, run.id, e);
    return e;
  }
  const queued: string[] = [];
  let note = '';
  if (wanted > 0 && run.queuedAt && run.workloadId && run.clusterId) {
    for (let i = 0; i < wanted; i++) {
      try {
        const c = await startWorkloadRun(
          deps,
          caller,
          { id: run.workloadId, cluster: run.clusterId, labels: { confirms: run.id } },
          'confirmation',
        );
        await markConfirmationRun(deps.db, orgId, c.id, {
          confirmsRunId: run.id,
          gitRepo: run.gitRepo,
          gitBranch: run.gitBranch,
          gitSha: run.gitSha,
        });
        queued.push(c.id);
      } catch (err) {
        note = `a confirmation run could not be queued: ${(err as Error).message}`;
        break;
      }
    }
    wanted = queued.length;
  }
  const confirmation: TConfirmation | null =
    wanted > 0 || note
      ? {
          state: 'suspected',
          wanted,
          metrics,
          runs: [],
          rule: CONFIRM_RULE,
          note: note || `suspected: waiting for ${wanted} confirmation run${wanted === 1 ? '' : 's'}`,
        }
      : null;
  const stored: TRunComparison = { ...e, confirmation, regression: !confirmation };
  await storeRunEvaluation(deps.db, orgId, run.id, stored);
  const def = await getDefaultBaseline(deps, orgId, run);
  const alerts = [];
  for (const v of e.verdicts.filter((x) => metrics.includes(x.metric))) {
    const t = def.thresholds.find((x) => x.metric === v.metric && v.test === 'threshold');
    alerts.push(
      await createRegressionAlert(deps.db, orgId, {
        runId: run.id,
        thresholdId: t?.id ?? null,
        metric: v.metric,
        value: v.value,
        baseline: v.baseline,
        message: describeRegression(v, e, t),
        confirmation: confirmation ? 'suspected' : 'none',
      }),
    );
  }
  if (!confirmation)
    for (const a of alerts) await notifyBenchmarkAlert(deps, orgId, { ...a, clusterId: run.clusterId });
  // Nothing could be queued: it cannot be confirmed, and says why.
  if (confirmation && wanted === 0) await settleConfirmation(deps, orgId, run.id);
  return stored;
}

function describeRegression(
  v: TMetricVerdict,
  e: TRunComparison,
  t?: Pick<TThreshold, 'test' | 'limit'>,
): string {
  return formatAlertText({
    metric: v.metric,
    unit: v.unit,
    value: v.value,
    baseline: v.baseline,
    branch: e.baseline.branch ?? e.baseline.name,
    runs: e.baseline.run_ids.length,
    ...(t
      ? { test: t.test, limit: t.limit }
      : { judgedBy: `${TEST_BADGE[v.test]}, ${EVIDENCE_WORDS[v.evidence]}` }),
  });
}

/** What one confirmation run says about the suspected metrics, and whether it counts. */
export function judgeConfirmationRun(
  metrics: readonly string[],
  r: Pick<TRunRow, 'id' | 'status' | 'finishedAt' | 'envHealthy' | 'env'>,
  e: TRunComparison | null,
): TConfirmation['runs'][number] | null {
  if (!r.finishedAt) return null;
  const base = { id: r.id, regressed: false };
  if (r.status !== 'succeeded')
    return { ...base, counted: false, reason: `does not count: the run ${r.status}` };
  if (r.envHealthy === false) {
    const env = r.env as { reasons?: unknown } | null;
    const why =
      Array.isArray(env?.reasons) && env.reasons.length ? `: ${env.reasons.map(String).join('; ')}` : '';
    return { ...base, counted: false, reason: `does not count: the cluster was unhealthy during it${why}` };
  }
  if (!e) return { ...base, counted: false, reason: 'does not count: it has no evaluation' };
  const found = metrics.map((m) => e.verdicts.find((v) => v.metric === m));
  const again = found.every((v) => v?.judged && v.verdict === 'regression');
  const words = found
    .map((v, i) =>
      v
        ? `${v.metric}${pct(v.change_pct)} (${v.verdict === 'noise' ? 'no change' : v.verdict})`
        : `${metrics[i]} missing`,
    )
    .join(', ');
  return {
    ...base,
    counted: true,
    regressed: again,
    reason: `${again ? 'regressed again' : 'did not regress again'}: ${words}`,
  };
}

/** A suspected metric's mean change over the counted confirmation runs (the mean part of CONFIRM_RULE). */
export type TConfirmationMean = { metric: string } & ReturnType<typeof judgeConfirmationMean>;

const pctOf = (v: number) => `${Math.abs(v).toFixed(1)} %`;

/** Decides a suspect from its confirmation runs and their means (CONFIRM_RULE); null while undecided. */
export function decideConfirmation(
  c: TConfirmation,
  runs: readonly TConfirmation['runs'][number][],
  finished: number,
  means: readonly TConfirmationMean[],
): Pick<TConfirmation, 'state' | 'note'> | null {
  const counted = runs.filter((r) => r.counted);
  const miss = counted.find((r) => !r.regressed);
  if (miss)
    return { state: 'not_confirmed', note: `not confirmed: confirmation run ${miss.id} ${miss.reason}` };
  if (finished < c.wanted) return null;
  const skipped = runs.length - counted.length;
  const aside = skipped ? `; ${skipped} of ${runs.length} did not count` : '';
  if (!counted.length)
    return {
      state: 'not_confirmed',
      note: c.wanted
        ? `not confirmed: no confirmation run counted${aside}`
        : c.note.replace(/^suspected: /, 'not confirmed: '),
    };
  const inRuns = `in ${counted.length === 1 ? 'the' : `all ${counted.length}`} counted confirmation run${counted.length === 1 ? '' : 's'}`;
  const short = means.find((m) => !m.confirmed);
  if (short)
    return {
      state: 'not_confirmed',
      note: `not confirmed: ${short.metric} regressed again ${inRuns}, but by ${pctOf(short.meanPct)} on average, under the ${pctOf(short.floorPct)} floor${aside}`,
    };
  const by = means.map((m) => pctOf(m.meanPct)).join(' and ');
  return {
    state: 'confirmed',
    note: `confirmed: ${c.metrics.join(', ')} regressed again ${inRuns}, by ${by} on average (floor ${pctOf(means[0]?.floorPct ?? 0)})${aside}`,
  };
}

/**
 * Re-reads a suspect's confirmation runs and decides it once it can: confirmed alerts notify (each alert
 * once, whoever settles it), not-confirmed ones are kept and labelled. The stored evaluation records each
 * run's part and the decision.
 */
export async function settleConfirmation(deps: TDeps, orgId: string, suspectId: string) {
  const [suspect] = await findRunsByIds(deps.db, orgId, [suspectId]);
  const e = suspect ? parseEvaluation(suspect) : null;
  if (!suspect || !e?.confirmation || e.confirmation.state !== 'suspected') return;
  const c = e.confirmation;
  const confs = (await findConfirmationRuns(deps.db, orgId, suspectId)).map((r) => ({
    r,
    e: parseEvaluation(r),
  }));
  const runs = confs.flatMap(({ r, e }) => judgeConfirmationRun(c.metrics, r, e) ?? []);
  const counted = new Set(runs.filter((r) => r.counted).map((r) => r.id));
  const means = c.metrics.map((metric) => {
    const direction = e.verdicts.find((v) => v.metric === metric)?.direction ?? 'higher';
    const changes = confs
      .filter(({ r }) => counted.has(r.id))
      .map(({ e }) => e?.verdicts.find((v) => v.metric === metric)?.change_pct ?? 0);
    return { metric, ...judgeConfirmationMean(changes, direction) };
  });
  const decided = decideConfirmation(c, runs, runs.length, means);
  const next: TConfirmation = { ...c, runs, ...(decided ?? {}) };
  await storeRunEvaluation(deps.db, orgId, suspectId, {
    ...e,
    confirmation: next,
    regression: next.state === 'confirmed',
  });
  if (!decided) return;
  for (const a of await listSuspectedAlerts(deps.db, orgId, suspectId)) {
    const state = decided.state === 'confirmed' ? 'confirmed' : 'not_confirmed';
    if (!(await settleRegressionAlert(deps.db, orgId, a.id, { confirmation: state, note: decided.note })))
      continue;
    if (state === 'confirmed')
      await notifyBenchmarkAlert(deps, orgId, { ...a, clusterId: suspect.clusterId });
  }
}
