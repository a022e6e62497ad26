import { basename } from 'node:path';
import { EVIDENCE_WORDS, METRIC_KIND_WORDS, TEST_BADGE, type TTool } from '@clusterscope/schema';
import type { TEnv } from '../env';
import type { TComparison, TVerdict } from './api-client';

export class UsageError extends Error {}

/** What `clusterscope run` and `submit` post a run as, and how they judge it. */
export interface RunTarget {
  cluster: string;
  workload: string;
  tool?: TTool;
  labels: Record<string, string>;
  git?: { repo: string; branch: string; sha: string };
  failOnRegression: boolean;
  baseline?: string;
  /** Metric names and kinds that can fail the run (`--verdict-metrics`). */
  verdictMetrics?: string[];
}

/** Tool from the command line: basename of argv[0]; `cockroach workload …` → cockroach-workload. */
export function detectToolFromArgv(argv: string[]): TTool | undefined {
  const bin = basename(argv[0] ?? '');
  if (bin === 'cockroach') return argv.includes('workload') ? 'cockroach-workload' : undefined;
  const known: TTool[] = ['sysbench', 'pgbench', 'fio', 'wrk', 'hey'];
  return known.find((t) => bin === t);
}

/** `k=v` pairs → record; names the bad one. */
export function parseLabels(pairs: string[], flag = '--label'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const i = p.indexOf('=');
    if (i <= 0) throw new UsageError(`${flag} "${p}" must be key=value`);
    out[p.slice(0, i)] = p.slice(i + 1);
  }
  return out;
}

export function requireServer(env: TEnv): { url: string; token: string } {
  const missing = [
    !env.CLUSTERSCOPE_URL && 'CLUSTERSCOPE_URL',
    !env.CLUSTERSCOPE_TOKEN && 'CLUSTERSCOPE_TOKEN',
  ].filter(Boolean);
  if (missing.length) {
    throw new UsageError(
      `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set.\n` +
        '  export CLUSTERSCOPE_URL=https://clusterscope.example.com   # the Clusterscope base URL\n' +
        '  export CLUSTERSCOPE_TOKEN=<API token with the runs:write scope>',
    );
  }
  try {
    new URL(env.CLUSTERSCOPE_URL!);
  } catch {
    throw new UsageError(
      `CLUSTERSCOPE_URL "${env.CLUSTERSCOPE_URL}" is not a URL (expected e.g. https://clusterscope.example.com)`,
    );
  }
  return { url: env.CLUSTERSCOPE_URL!, token: env.CLUSTERSCOPE_TOKEN! };
}

/** Git metadata from flags, else GitHub Actions / GitLab CI variables. */
export function gitInfo(env: TEnv, flags: { repo?: string; branch?: string; sha?: string }) {
  const repo =
    flags.repo ??
    (env.GITHUB_REPOSITORY
      ? `${env.GITHUB_SERVER_URL ?? 'https://github.com'}/${env.GITHUB_REPOSITORY}`
      : env.CI_PROJECT_URL);
  const branch = flags.branch ?? env.GITHUB_HEAD_REF ?? env.GITHUB_REF_NAME ?? env.CI_COMMIT_REF_NAME;
  const sha = flags.sha ?? env.GITHUB_SHA ?? env.CI_COMMIT_SHA;
  return repo && branch && sha ? { repo, branch, sha } : undefined;
}

const fmt = (v: number | null | undefined, digits = 2) =>
  v === null || v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(digits);

/** `+1.2%` / `-3.4%` / `0.0%` (a change that rounds to zero has no sign, never `-0.0%`). */
function fmtChange(v: number | null): string {
  if (v === null || !Number.isFinite(v)) return '—';
  const r = Number(v.toFixed(1));
  return r === 0 ? '0.0%' : `${r > 0 ? '+' : ''}${r.toFixed(1)}%`;
}

/**
 * A short fixed-width table of compare verdicts, in the dashboard's words: the metric's kind, the test that
 * judged it and the evidence. A verdict that cannot fail the run (not judged, indicative) is in brackets.
 */
export function formatVerdicts(verdicts: TVerdict[]): string {
  const rows = [
    ['metric', 'kind', 'change', '95% CI', 'p', 'test', 'evidence', 'verdict'],
    ...verdicts.map((v) => {
      const word = v.verdict === 'noise' ? 'no change' : v.verdict;
      return [
        v.metric,
        v.kind ? METRIC_KIND_WORDS[v.kind] : '—',
        fmtChange(v.change_pct),
        v.ci95 ? `[${fmt(v.ci95[0], 1)}, ${fmt(v.ci95[1], 1)}]` : '—',
        fmt(v.p_value, 3),
        v.test ? TEST_BADGE[v.test] : '—',
        v.evidence ? EVIDENCE_WORDS[v.evidence] : '—',
        v.judged === false ? `(${word})` : word,
      ];
    }),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Lines explaining a comparison that has no regression for a reason other than the numbers. */
export function describeComparison(cmp: TComparison): string[] {
  const out: string[] = [];
  const b = cmp.baseline;
  if (b) {
    const what =
      b.kind === 'run' ? `run ${b.ref}` : (b.name ?? `branch ${b.ref} (${b.run_ids.length} run(s))`);
    out.push(`baseline: ${what}`);
  }
  if (cmp.verdict && cmp.reason)
    out.push(`verdict: ${cmp.verdict.replace('noise', 'no change')} (${cmp.reason})`);
  if (cmp.warning) out.push(`warning: ${cmp.warning}; no verdict`);
  if (cmp.verdict === 'no_baseline') out.push('no baseline to compare with: nothing was judged');
  if (cmp.verdict === 'unhealthy_env' || cmp.envHealthy === false) {
    const why = cmp.env_reasons?.length ? `: ${cmp.env_reasons.join('; ')}` : '';
    out.push(`the cluster was unhealthy during the run${why}; regressions are not counted`);
  }
  return out;
}
