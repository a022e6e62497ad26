import { basename } from 'node:path';
import type { TFormat, TMachine, TTool } from '@clusterscope/schema';
import type { TEnv } from '../env';

export class UsageError extends Error {}

/** What `clusterscope run` and `submit` post a run as, and how they judge it. */
export interface RunTarget {
  cluster: string;
  workload: string;
  tool?: TFormat;
  labels: Record<string, string>;
  git?: { repo?: string; branch?: string; sha?: string };
  failOnRegression: boolean;
  baseline?: string;
  /** The base branch compared with until the run's branch has runs of its own. */
  startPoint?: string;
  /** Metric names and kinds that can fail the run (`--verdict-metrics`). */
  verdictMetrics?: string[];
  /** Where the report goes besides the terminal (GitHub, GitLab, JUnit, --json). */
  ci?: import('./ci').CiPublisher;
  /** The machine the run ran on (collectMachine): the baseline is chosen from runs on its kind. */
  machine?: TMachine;
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

/**
 * Git metadata from flags, else GitHub Actions / GitLab CI variables. Whatever is known is kept: a
 * `--branch main` alone still makes the run part of main's baseline.
 */
export function gitInfo(
  env: TEnv,
  flags: { repo?: string; branch?: string; sha?: string },
): { repo?: string; branch?: string; sha?: string } | undefined {
  const repo =
    flags.repo ??
    (env.GITHUB_REPOSITORY
      ? `${env.GITHUB_SERVER_URL ?? 'https://github.com'}/${env.GITHUB_REPOSITORY}`
      : env.CI_PROJECT_URL);
  const branch = flags.branch ?? env.GITHUB_HEAD_REF ?? env.GITHUB_REF_NAME ?? env.CI_COMMIT_REF_NAME;
  const sha = flags.sha ?? env.GITHUB_SHA ?? env.CI_COMMIT_SHA;
  if (!repo && !branch && !sha) return undefined;
  return { ...(repo ? { repo } : {}), ...(branch ? { branch } : {}), ...(sha ? { sha } : {}) };
}
