/**
 * Where a run's report goes besides the terminal: `--json`, the GitHub job summary, outputs, PR comment
 * and check run, the GitLab MR note and a JUnit file. All of them print the server's report as is.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import junit from 'junit-report-builder';
import type { TEnv } from '../env';
import type { ApiClient, TRunReport } from './api-client';
import { UsageError } from './common';
import { ForgeError, GitHubClient, GitLabClient, type TCheckConclusion } from './forge';

export interface CiOptions {
  json: boolean;
  githubActions: boolean;
  gitlab: boolean;
  junit?: string;
  /** Tells apart jobs that run the same workload twice (matrix): one comment each. */
  ciId?: string;
  /** Skip the PR comment / MR note while nothing regressed. */
  onlyOnAlert: boolean;
  /** Fail the command (exit 1) when a comment, note or check cannot be written. */
  failOnCiError: boolean;
  githubToken?: string;
  /** Fork PRs: the workflow_run job names the pull request and head sha it posts for. */
  pr?: number;
  headSha?: string;
}

/** No CI surface: the report is printed to the terminal only. */
export const NO_CI: CiOptions = {
  json: false,
  githubActions: false,
  gitlab: false,
  onlyOnAlert: false,
  failOnCiError: false,
};

type TIo = { out: (s: string) => void; err: (s: string) => void };

/** The hidden marker that finds "our" comment again: one per pull request, cluster, workload and --ci-id. */
export function reportMarker(cluster: string, workload: string, ciId?: string): string {
  const v = (s: string) => encodeURIComponent(s);
  return `<!-- clusterscope-report cluster=${v(cluster)} workload=${v(workload)}${ciId ? ` ci-id=${v(ciId)}` : ''} -->`;
}

/** The pull request and head sha of this job: flags, else the pull_request / workflow_run event. */
function readGitHubEvent(env: TEnv, opts: CiOptions): { pr?: number; headSha?: string } {
  let event: {
    pull_request?: { number?: number; head?: { sha?: string } };
    workflow_run?: { head_sha?: string; pull_requests?: { number?: number }[] };
  } = {};
  if (env.GITHUB_EVENT_PATH) {
    try {
      event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as typeof event;
    } catch {
      event = {};
    }
  }
  const pr = opts.pr ?? event.pull_request?.number ?? event.workflow_run?.pull_requests?.[0]?.number;
  // On pull_request events GITHUB_SHA is the merge commit; the check belongs on the PR's head commit.
  const headSha =
    opts.headSha ?? event.pull_request?.head?.sha ?? event.workflow_run?.head_sha ?? env.GITHUB_SHA;
  return { pr, headSha };
}

function conclusionOf(r: TRunReport): TCheckConclusion {
  if (r.regression) return 'failure';
  return r.verdict === 'noise' || r.verdict === 'improvement' ? 'success' : 'neutral';
}

/** `name<<DELIM` blocks: a value can hold newlines or `=` without forging another output. */
function formatOutputs(values: Record<string, string>): string {
  const delim = `CLUSTERSCOPE_${randomBytes(8).toString('hex')}`;
  return Object.entries(values)
    .map(([k, v]) => `${k}<<${delim}\n${v}\n${delim}\n`)
    .join('');
}

export function buildJunit(r: TRunReport): string {
  const b = junit.newBuilder();
  const suite = b.testSuite().name(`Clusterscope ${r.cluster}/${r.workload}`);
  const cls = `clusterscope.${r.cluster}.${r.workload}`;
  const judged = r.metrics.filter((m) => m.verdict !== null);
  for (const m of judged) {
    const c = suite.testCase().className(cls).name(m.metric);
    if (m.verdict === 'regression')
      c.failure(`${m.label} regressed vs ${r.baseline.name}: ${m.reason}`, 'regression');
    c.standardOutput(`${m.verdict === 'noise' ? 'no change' : m.verdict}: ${m.reason}\n${r.run_url}`);
  }
  if (judged.length === 0)
    suite
      .testCase()
      .className(cls)
      .name('verdict')
      .skipped()
      .standardOutput(`${r.verdict_words}: ${r.baseline_note}`);
  return b.build();
}

export class CiPublisher {
  private check: { id: number; client: GitHubClient; sha: string } | undefined;
  private ciFailed = false;

  constructor(
    private readonly env: TEnv,
    readonly opts: CiOptions,
    private readonly io: TIo,
  ) {
    if (opts.githubActions && !env.GITHUB_REPOSITORY)
      throw new UsageError('--github-actions: GITHUB_REPOSITORY is not set (run it in a GitHub Actions job)');
    if (opts.gitlab) {
      const missing = (['CI_API_V4_URL', 'CI_PROJECT_ID'] as const).filter((k) => !env[k]);
      if (missing.length)
        throw new UsageError(`--gitlab: ${missing.join(' and ')} not set (run it in a GitLab CI job)`);
    }
  }

  private note(msg: string) {
    this.io.err(`clusterscope: ${msg}\n`);
  }

  /** A forge write that failed: said clearly, and fatal only with --fail-on-ci-error. */
  private failed(what: string, e: unknown) {
    this.ciFailed = true;
    this.note(`${what} failed: ${(e as Error).message}`);
    if (!this.opts.failOnCiError)
      this.note('the benchmark result stands (pass --fail-on-ci-error to fail on this)');
  }

  private github(): GitHubClient | undefined {
    const token = this.opts.githubToken ?? this.env.GITHUB_TOKEN;
    if (!token) return undefined;
    return new GitHubClient(
      this.env.GITHUB_API_URL ?? 'https://api.github.com',
      this.env.GITHUB_REPOSITORY!,
      token,
    );
  }

  /** `run`: the check run is in progress while the tool runs. */
  async begin(cluster: string, workload: string): Promise<void> {
    if (!this.opts.githubActions) return;
    const gh = this.github();
    const { headSha } = readGitHubEvent(this.env, this.opts);
    if (!gh || !headSha) return;
    try {
      const id = await gh.createCheck(checkName(cluster, workload, this.opts.ciId), headSha, this.jobUrl());
      this.check = { id, client: gh, sha: headSha };
    } catch (e) {
      this.failed('creating the check run', e);
    }
  }

  private jobUrl(): string | undefined {
    const e = this.env;
    return e.GITHUB_REPOSITORY && e.GITHUB_RUN_ID
      ? `${e.GITHUB_SERVER_URL ?? 'https://github.com'}/${e.GITHUB_REPOSITORY}/actions/runs/${e.GITHUB_RUN_ID}`
      : undefined;
  }

  /** Prints the report and writes it everywhere asked. Returns 1 when a write failed and that was to fail. */
  async publish(report: TRunReport): Promise<number> {
    if (this.opts.json) this.io.out(JSON.stringify(report, null, 2) + '\n');
    else this.io.err(`\n${report.text}`);
    if (this.opts.junit) {
      try {
        writeFileSync(this.opts.junit, buildJunit(report));
        this.note(`JUnit report written to ${this.opts.junit}`);
      } catch (e) {
        this.failed(`writing ${this.opts.junit}`, e);
      }
    }
    if (this.opts.githubActions) await this.publishGitHub(report);
    if (this.opts.gitlab) await this.publishGitLab(report);
    return this.ciFailed && this.opts.failOnCiError ? 1 : 0;
  }

  private async publishGitHub(r: TRunReport): Promise<void> {
    const e = this.env;
    if (e.GITHUB_STEP_SUMMARY) appendFileSync(e.GITHUB_STEP_SUMMARY, r.markdown + '\n');
    else this.note('GITHUB_STEP_SUMMARY is not set: no job summary written');
    if (e.GITHUB_OUTPUT)
      appendFileSync(
        e.GITHUB_OUTPUT,
        formatOutputs({
          'run-id': r.run_id,
          'run-url': r.run_url,
          verdict: r.verdict,
          regressions: r.regressions.join(','),
        }),
      );
    const gh = this.github();
    if (!gh) {
      this.note('no GitHub token (GITHUB_TOKEN or --github-token): no pull-request comment or check run');
      return;
    }
    const { pr, headSha } = readGitHubEvent(e, this.opts);
    const commentWanted = !this.opts.onlyOnAlert || r.regression;
    if (pr && commentWanted) {
      const marker = reportMarker(r.cluster, r.workload, this.opts.ciId);
      try {
        const c = await gh.upsertComment(pr, marker, `${marker}\n${r.markdown}`);
        this.note(`${c.created ? 'posted' : 'updated'} the report on pull request #${pr} (comment ${c.id})`);
      } catch (err) {
        this.failed(`writing the pull-request comment on #${pr}`, err);
      }
    } else if (pr) this.note('no regression: no pull-request comment (--ci-only-on-alert)');
    const sha = this.check?.sha ?? headSha;
    if (!sha) return;
    try {
      await gh.completeCheck(this.check?.id, {
        name: checkName(r.cluster, r.workload, this.opts.ciId),
        headSha: sha,
        conclusion: conclusionOf(r),
        title: `${r.verdict_words}: ${r.reason}`,
        summary: r.markdown,
        detailsUrl: r.run_url,
      });
    } catch (err) {
      this.failed('completing the check run', err);
    }
  }

  /** The check run of a `run` whose tool never finished normally (the report could not be made). */
  async abandon(reason: string): Promise<void> {
    if (!this.check) return;
    try {
      await this.check.client.completeCheck(this.check.id, {
        name: '',
        headSha: this.check.sha,
        conclusion: 'neutral',
        title: 'not judged',
        summary: reason,
      });
    } catch (err) {
      this.failed('completing the check run', err);
    }
  }

  private async publishGitLab(r: TRunReport): Promise<void> {
    const e = this.env;
    const iid = Number(e.CI_MERGE_REQUEST_IID);
    if (!e.CI_MERGE_REQUEST_IID || !Number.isInteger(iid)) {
      this.note('--gitlab: not a merge-request pipeline (CI_MERGE_REQUEST_IID is not set): no note');
      return;
    }
    if (!e.GITLAB_TOKEN) {
      this.failed(
        'writing the merge-request note',
        new Error('GITLAB_TOKEN is not set (a token with the "api" scope)'),
      );
      return;
    }
    if (this.opts.onlyOnAlert && !r.regression) {
      this.note('no regression: no merge-request note (--ci-only-on-alert)');
      return;
    }
    const marker = reportMarker(r.cluster, r.workload, this.opts.ciId);
    try {
      const gl = new GitLabClient(e.CI_API_V4_URL!, e.CI_PROJECT_ID!, iid, e.GITLAB_TOKEN);
      const n = await gl.upsertNote(marker, `${marker}\n${r.markdown}`);
      this.note(`${n.created ? 'posted' : 'updated'} the report on merge request !${iid} (note ${n.id})`);
    } catch (err) {
      this.failed(`writing the merge-request note on !${iid}`, err);
    }
  }
}

export function checkName(cluster: string, workload: string, ciId?: string): string {
  return `Clusterscope: ${cluster}/${workload}${ciId ? ` (${ciId})` : ''}`;
}

/** Fetches the server's report of run `id` and publishes it; the exit code with --fail-on-regression. */
export async function reportRun(
  api: ApiClient,
  ci: CiPublisher,
  id: string,
  o: { baseline?: string; failOnRegression: boolean; startPoint?: string; verdictMetrics?: string[] },
): Promise<{ code: number; report?: TRunReport }> {
  let report: TRunReport;
  try {
    report = await api.report(id, o.baseline, o.startPoint, o.verdictMetrics);
  } catch (e) {
    await ci.abandon(`the report could not be read: ${(e as Error).message}`);
    throw e;
  }
  const ciCode = await ci.publish(report);
  if (o.failOnRegression && report.regression) return { code: 3, report };
  return { code: ciCode, report };
}

export { ForgeError };
