/**
 * The comparison report of one run, rendered once here: the CLI's terminal output and `--json`, the job
 * summary, the PR comment, the MR note and the JUnit file are all this report.
 */
import { getMetricInfo } from '@clusterscope/bench';
import {
  EVIDENCE_WORDS,
  TEST_BADGE,
  describeVerdict,
  formatValue,
  shortId,
  type TAlertPrecision,
  type TMetricVerdict,
  type TReportMetric,
  type TRunComparison,
  type TRunReport,
  type TRunStatus,
} from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import { assertCan, type TCaller } from '../tenancy/caller';
import { loadRun } from '../tenancy/access';
import { compareRunWithBaseline, readEvaluation } from './compare';
import { getAlertPrecision } from './regression-alerts';

export function toReportMetric(v: TMetricVerdict): TReportMetric {
  return {
    metric: v.metric,
    label: getMetricInfo(v.metric)?.label ?? v.metric,
    unit: v.unit,
    baseline: v.baseline,
    value: v.value,
    change_pct: v.change_pct,
    ci95: v.ci95,
    p_value: v.p_value,
    test: `${TEST_BADGE[v.test]}, ${EVIDENCE_WORDS[v.evidence]}`,
    verdict: v.judged ? v.verdict : null,
    reason: v.reason,
  };
}

/** Markdown-inert text: CI and tool-supplied names become plain text in a comment or table cell. */
export function escapeMarkdown(s: string): string {
  return s
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|~])/g, '\\$1');
}

const pct = (v: number | null) =>
  v === null || !Number.isFinite(v) ? '—' : `${v > 0 ? '+' : ''}${Number(v.toFixed(1)).toFixed(1)}%`;
const amount = (v: number | null, unit: string) =>
  v === null ? '—' : `${formatValue(v)}${unit && unit !== 'count' ? ` ${unit}` : ''}`;
/** A code span (names of metrics): backticks cannot close it, `|` cannot end a table cell. */
const code = (s: string) => `\`${s.replace(/[`\r\n]/g, "'").replace(/\|/g, '\\|')}\``;
const pValue = (p: number | null) => (p === null ? '' : p < 0.001 ? ', p<0.001' : `, p=${p.toPrecision(2)}`);
const interval = (ci: [number, number] | null) => (ci ? `[${pct(ci[0])}, ${pct(ci[1])}]` : '—');

const ICON: Record<string, string> = {
  regression: '🔴',
  improvement: '🟢',
  noise: '⚪',
  unhealthy_env: '🟡',
  no_baseline: '🔵',
  incomparable: '🟡',
};

export type TReportFacts = {
  run: {
    id: string;
    status: TRunStatus;
    cluster: string;
    workload: string;
    tool: string;
    branch: string | null;
    sha: string | null;
  };
  comparison: TRunComparison;
  /** Public base URL and org slug for the run and compare links. */
  origin: string;
  org: string;
  /** The run's own branch when it had no runs yet and its start point (base branch) was used instead. */
  fellBackFrom?: string | null;
  /** Warnings every surface shows (cross-machine comparison, run without a branch…). */
  warnings?: string[];
  precision?: TAlertPrecision | null;
};

/** "Precision (90 days): 4 suspected, 1 confirmed, 3 not confirmed; 0 invalid, 0 expected; false alerts 0 %." */
export function describePrecision(p: TAlertPrecision): string[] {
  const share =
    p.falseAlertShare === null
      ? 'no notified alerts'
      : `false alerts ${Math.round(p.falseAlertShare * 100)} %`;
  const out = [
    `Precision (last ${p.days} days): ${p.suspected} suspected, ${p.confirmed} confirmed, ${p.notConfirmed} not confirmed; ${p.byStatus.invalid} invalid, ${p.byStatus.expected} expected; ${share}.`,
  ];
  if (p.noise)
    out.push(
      `Noise: ${p.noise.metric} varies ${p.noise.cvPct.toFixed(1)} % (CV) over the last ${p.noise.runs} baseline runs; detects changes of ${Math.round(p.noise.detectablePct)} % or more (${p.noise.basis}).`,
    );
  return out;
}

/** The confirmation part of a report: the decision, each confirmation run's part, and the rule. */
function describeConfirmation(c: TRunComparison['confirmation']): string[] {
  if (!c) return [];
  return [
    c.note.charAt(0).toUpperCase() + c.note.slice(1) + '.',
    ...c.runs.map((r) => `- confirmation run ${shortId(r.id)}: ${r.reason}`),
    `Rule: ${c.rule}`,
  ];
}

/**
 * Which baseline was used, or why there is none and what to pass, in one sentence. `plain` renders the
 * CI/tool-supplied names (`name`, branches) and `flag` the CLI flags: the markdown report escapes the names
 * only, so the flags stay code spans (escaping them too would show their backticks and a `\|`).
 */
function describeBaseline(
  f: TReportFacts,
  plain: (s: string) => string = (s) => s,
  flag: (s: string) => string = (s) => `\`${s}\``,
): string {
  const b = f.comparison.baseline;
  if (b.kind === 'run') return `Baseline: run ${shortId(b.ref)}.`;
  const since = f.fellBackFrom ? ` (branch ${plain(f.fellBackFrom)} has no runs of its own yet)` : '';
  if (b.lane && b.change) {
    const what = `the build change ${plain(b.change.from)} → ${plain(b.change.to)} seen at ${b.change.at} that started this run`;
    return b.run_ids.length > 0
      ? `Baseline: ${plain(b.name)}, the latest succeeded runs of this workload on this cluster before ${what}.`
      : `No baseline: this workload has no succeeded run on this cluster before ${what}.`;
  }
  if (b.lane)
    return b.run_ids.length > 0
      ? `Baseline: ${plain(b.name)}, the latest succeeded runs of this workload that Clusterscope started on this cluster without a git branch (the dashboard lane).`
      : `No baseline yet: this is the first succeeded run of this workload that Clusterscope started on this cluster without a git branch; the next such runs are compared with it (the dashboard lane). Pass ${flag('--baseline RUN_ID|BRANCH')} to compare with another.`;
  const branch = plain(b.branch ?? '');
  if (b.run_ids.length > 0)
    return `Baseline: ${plain(b.name)}, the latest succeeded runs of this workload on branch ${branch}${since}.`;
  if (!f.run.branch)
    return (
      `No baseline: this run has no branch, and branch ${branch} has no earlier runs of this workload. ` +
      `Pass ${flag('--branch')} (CI sets it from GITHUB_HEAD_REF/GITHUB_REF_NAME or CI_COMMIT_REF_NAME), ` +
      `or ${flag('--baseline RUN_ID|BRANCH')} to choose one.`
    );
  return (
    `No baseline: branch ${branch} has no earlier succeeded runs of this workload before this one. ` +
    `Run the workload on ${branch} first, or pass ${flag('--baseline RUN_ID|BRANCH')}.`
  );
}

/** The report of a run from its comparison (pure). */
export function renderRunReport(f: TReportFacts): TRunReport {
  const c = f.comparison;
  const origin = f.origin.replace(/\/+$/, '');
  const runUrl = `${origin}/${f.org}/runs/${encodeURIComponent(f.run.id)}`;
  const b = c.baseline;
  const compareUrl =
    b.kind === 'run'
      ? `${origin}/${f.org}/compare?runs=${encodeURIComponent(`${b.ref},${f.run.id}`)}`
      : b.run_ids.length
        ? `${origin}/${f.org}/compare?runs=${encodeURIComponent(f.run.id)}&baseline=${encodeURIComponent(b.ref)}`
        : null;
  const metrics = c.verdicts.map(toReportMetric);
  const warnings = [...(f.warnings ?? [])];
  if (c.warning) warnings.push(`not comparable with the baseline: ${c.warning}; no verdict is given`);
  if (c.machine_warning) warnings.push(c.machine_warning);
  if (c.verdict === 'unhealthy_env' || c.envHealthy === false)
    warnings.push(
      `the cluster was unhealthy during the run${c.env_reasons.length ? `: ${c.env_reasons.join('; ')}` : ''}; regressions are not counted`,
    );
  const words = describeVerdict(c.verdict, c.confirmation?.state);
  const baselineNote = describeBaseline(f);
  const regressions = metrics.filter((m) => m.verdict === 'regression').map((m) => m.metric);
  const who = `${f.run.cluster}/${f.run.workload}`;
  const e = escapeMarkdown;

  const md: string[] = [
    `### ${ICON[c.verdict]} Clusterscope: ${e(who)} — ${words}`,
    '',
    `**${words}** vs ${e(b.name)}: ${e(c.reason)}`,
    '',
  ];
  for (const w of warnings) md.push(`> ⚠️ **Warning:** ${e(w)}`, '');
  const confirmation = describeConfirmation(c.confirmation);
  if (c.confirms)
    md.push(`This is a confirmation run of run ${shortId(c.confirms)}, judged against its baseline.`, '');
  if (confirmation.length) md.push(...confirmation.map(e), '');
  const judged = metrics.filter((m) => m.verdict !== null);
  const unjudged = metrics.filter((m) => m.verdict === null);
  if (judged.length) {
    md.push(
      '| Metric | Baseline | This run | Change | 95% CI | Test | Verdict |',
      '|---|---:|---:|---:|---|---|---|',
    );
    for (const m of judged)
      md.push(
        `| ${e(m.label)} (${code(m.metric)}) | ${e(amount(m.baseline, m.unit))} | ${e(amount(m.value, m.unit))} | ${pct(m.change_pct)} | ${interval(m.ci95)} | ${m.test}${pValue(m.p_value)} | ${m.verdict === 'noise' ? 'no change' : m.verdict} |`,
      );
    md.push('');
  }
  if (unjudged.length) {
    md.push(`<details><summary>Not judged (${unjudged.length})</summary>`, '');
    for (const m of unjudged)
      md.push(`- ${e(m.label)} (${code(m.metric)}) ${e(amount(m.value, m.unit))}: ${e(m.reason)}`);
    md.push('', '</details>', '');
  }
  md.push(describeBaseline(f, escapeMarkdown), '');
  const precision = f.precision ? describePrecision(f.precision) : [];
  if (precision.length) md.push(...precision.map(e), '');
  const ref = [
    f.run.branch && `branch ${e(f.run.branch)}`,
    f.run.sha && `commit ${e(f.run.sha.slice(0, 12))}`,
  ]
    .filter(Boolean)
    .join(', ');
  md.push(
    `[Run ${shortId(f.run.id)}](${runUrl})${compareUrl ? ` · [Compare with the baseline](${compareUrl})` : ''} · ${e(f.run.tool)}, ${f.run.status}${ref ? `, ${ref}` : ''}`,
  );
  md.push('', `<sub>${e(c.rule)}</sub>`);

  const text: string[] = [`${who}: ${words} vs ${b.name}: ${c.reason}`];
  for (const w of warnings) text.push(`warning: ${w}`);
  if (c.confirms) text.push(`confirmation run of run ${shortId(c.confirms)}, judged against its baseline`);
  text.push(...confirmation);
  if (metrics.length) {
    const rows = [
      ['metric', 'baseline', 'this run', 'change', '95% CI', 'test', 'verdict'],
      ...metrics.map((m) => [
        m.metric,
        amount(m.baseline, m.unit),
        amount(m.value, m.unit),
        pct(m.change_pct),
        interval(m.ci95),
        m.test,
        m.verdict === null ? 'not judged' : m.verdict === 'noise' ? 'no change' : m.verdict,
      ]),
    ];
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    text.push(
      '',
      ...rows.map((r) =>
        r
          .map((x, i) => x.padEnd(widths[i]))
          .join('  ')
          .trimEnd(),
      ),
      '',
    );
    for (const m of unjudged) text.push(`not judged: ${m.metric}: ${m.reason}`);
  }
  text.push(baselineNote, ...precision, `run:     ${runUrl}`);
  if (compareUrl) text.push(`compare: ${compareUrl}`);

  return {
    run_id: f.run.id,
    run_url: runUrl,
    compare_url: compareUrl,
    cluster: f.run.cluster,
    workload: f.run.workload,
    tool: f.run.tool,
    branch: f.run.branch,
    sha: f.run.sha,
    status: f.run.status,
    verdict: c.verdict,
    verdict_words: words,
    regression: c.regression,
    confirmation: c.confirmation,
    confirms: c.confirms,
    precision: f.precision ?? null,
    regressions,
    reason: c.reason,
    baseline: b,
    baseline_note: baselineNote,
    warnings,
    metrics,
    rule: c.rule,
    markdown: md.join('\n') + '\n',
    text: text.join('\n') + '\n',
  };
}

/** GET /runs/{id}/report: the run's comparison with `baseline` (default: the workload's), as a report. */
export async function getRunReport(
  deps: TDeps,
  caller: TCaller,
  id: string,
  baseline?: string,
  startPoint?: string,
): Promise<TRunReport> {
  assertCan(caller, { run: ['read'] });
  const run = await loadRun(deps, caller, id);
  const warnings: string[] = [];
  let comparison: TRunComparison;
  let fellBack = false;
  // A suspected regression is confirmed against its stored baseline: its report is that evaluation.
  const stored = baseline ? null : await readEvaluation(deps, caller, run);
  if (stored?.confirmation) comparison = stored;
  else if (!baseline && startPoint && run.gitBranch && run.gitBranch !== startPoint) {
    comparison = await compareRunWithBaseline(deps, caller, id, run.gitBranch);
    if (comparison.baseline.run_ids.length === 0) {
      comparison = await compareRunWithBaseline(deps, caller, id, startPoint);
      fellBack = true;
    }
  } else comparison = await compareRunWithBaseline(deps, caller, id, baseline ?? startPoint);
  if (!run.gitBranch && run.queuedAt === null)
    warnings.push(
      'this run has no branch: pass --branch (or run in CI) so that later runs can use it as a baseline',
    );
  return renderRunReport({
    fellBackFrom: fellBack ? run.gitBranch : null,
    run: {
      id: run.id,
      status: run.status,
      cluster: run.cluster?.name ?? '—',
      workload: run.workload?.name ?? run.toolWorkload ?? run.tool,
      tool: run.tool,
      branch: run.gitBranch,
      sha: run.gitSha,
    },
    comparison,
    origin: deps.origin ?? '',
    org: caller.orgSlug,
    warnings,
    precision: run.workloadId ? await getAlertPrecision(deps, caller, run.workloadId) : null,
  });
}
