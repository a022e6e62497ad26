/** clusterscope: CI companion CLI (dist/clusterscope.js) — `run`, `submit` and `report`. */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FORMATS, METRIC_KINDS, ZFormat, ZVerdictMetricsParam, type TFormat } from '@clusterscope/schema';
import { ApiClient, ApiError, UnreachableError } from '../cli/api-client';
import { collectMachine } from '../lib/machine';
import { CiPublisher, reportRun, type CiOptions } from '../cli/ci';
import { detectToolFromArgv, gitInfo, parseLabels, requireServer, UsageError } from '../cli/common';
import { runBenchmark } from '../cli/run';
import { submitOutput } from '../cli/submit';
import { readEnv, type TEnv } from '../env';
import { AGENT_VERSION } from '../version';

const MAIN_HELP = `clusterscope ${AGENT_VERSION} — record benchmark runs in Clusterscope from CI.

Usage:
  clusterscope run    --cluster C --workload W [options] -- <tool> [tool args…]
  clusterscope submit --cluster C --workload W [options] <output.txt | ->
  clusterscope report --run ID [options]
  clusterscope <command> --help

Environment:
  CLUSTERSCOPE_URL     Clusterscope base URL, e.g. https://clusterscope.example.com
  CLUSTERSCOPE_TOKEN   API token with the runs:write scope
Git metadata is taken from --repo/--branch/--sha or GitHub Actions / GitLab CI variables.
Every command prints the run's report (the server's) with the run and compare URLs.`;

const REPORT_OPTS = `  --start-point BRANCH     compare with BRANCH until this run's branch has runs of its own
                           (default: GITHUB_BASE_REF or CI_MERGE_REQUEST_TARGET_BRANCH_NAME)
  --json                   print the report as JSON on stdout (the tool's output goes to stderr)
  --github-actions         job summary, outputs (run-id, run-url, verdict, regressions), one PR comment
                           per pull request and workload (edited in place), check run
                           "Clusterscope: <cluster>/<workload>" (GITHUB_TOKEN, needs pull-requests: write
                           and checks: write)
  --github-token T         token for comments and checks (default: GITHUB_TOKEN)
  --pr N --head-sha S      the pull request and head commit to post for (fork PRs: a workflow_run job)
  --ci-id ID               tells apart jobs running the same workload (one comment each)
  --ci-only-on-alert       no PR comment / MR note while nothing regressed
  --gitlab                 one merge-request note per workload, edited in place (GITLAB_TOKEN)
  --junit FILE             JUnit XML: one test case per judged metric
  --fail-on-ci-error       exit 1 when a comment, note or check cannot be written (default: warn)
  -h, --help               this help`;

const COMMON_OPTS = `  --cluster C              cluster slug (required)
  --workload W             workload name, e.g. oltp_read_write, tpcc (required)
  --tool T                 ${FORMATS.join(' | ')} (default: detected)
  --label k=v              label the run; repeatable
  --fail-on-regression     compare with the baseline and exit 3 on a regression
  --baseline ID|BRANCH     baseline run id or branch for the comparison (server default otherwise)
  --verdict-metrics a,b    metrics and kinds (rate, latency, error_rate, count, setup, duration) that
                           can fail the run (default: the workload's, else rates, latencies, error rates)
  --repo URL --branch B --sha S   git metadata (default: from CI environment)
${REPORT_OPTS}`;

const RUN_HELP = `Usage: clusterscope run --cluster C --workload W [options] -- <tool> [tool args…]

Spawns the tool (no shell; argv exactly as given), shows its output, posts interval samples live,
then its full output, and finishes the run with the tool's status. Exits with the tool's exit code
(3 on a regression with --fail-on-regression).

Options:
${COMMON_OPTS}
  --confirm N              on a suspected regression, run the tool N more times (posted as confirmation
                           runs of the first); exit 3 only when the regressed metric regresses again in
                           every counted confirmation run

Example:
  clusterscope run --cluster prod-east --workload oltp_read_write --label pr=123 --fail-on-regression \\
    -- sysbench oltp_read_write --threads=16 --time=60 --report-interval=1 run`;

const SUBMIT_HELP = `Usage: clusterscope submit --cluster C --workload W [options] <output.txt | ->

Posts a finished benchmark's output ("-" reads stdin) as a succeeded run and prints its summary.

Options:
${COMMON_OPTS}

Example:
  pgbench -P 1 -T 60 bench 2>&1 | tee out.txt; clusterscope submit --cluster ci --workload tpcb out.txt`;

const REPORT_HELP = `Usage: clusterscope report --run ID [options]

Prints the report of a stored run and writes it where asked. For pull requests from forks, a
workflow_run job (which has a write token) posts the result the benchmark job stored.

Options:
  --run ID                 the run (required)
  --baseline ID|BRANCH     baseline run id or branch (server default otherwise)
  --fail-on-regression     exit 3 when the run is a regression
${REPORT_OPTS}

Example (workflow_run job):
  clusterscope report --run "$RUN_ID" --github-actions --pr "$PR" --head-sha "$HEAD_SHA"`;

const CI_OPTIONS = {
  'start-point': { type: 'string' },
  json: { type: 'boolean' },
  'github-actions': { type: 'boolean' },
  'github-token': { type: 'string' },
  pr: { type: 'string' },
  'head-sha': { type: 'string' },
  'ci-id': { type: 'string' },
  'ci-only-on-alert': { type: 'boolean' },
  gitlab: { type: 'boolean' },
  junit: { type: 'string' },
  'fail-on-ci-error': { type: 'boolean' },
} as const;

type TCiValues = {
  [K in keyof typeof CI_OPTIONS]?: (typeof CI_OPTIONS)[K]['type'] extends 'boolean' ? boolean : string;
};

function toCiOptions(v: TCiValues): CiOptions {
  let pr: number | undefined;
  if (v.pr !== undefined) {
    pr = Number(v.pr);
    if (!Number.isInteger(pr) || pr <= 0)
      throw new UsageError(`--pr "${v.pr}" must be a pull request number`);
  }
  if (v['head-sha'] !== undefined && !/^[0-9a-f]{7,64}$/i.test(v['head-sha']))
    throw new UsageError(`--head-sha "${v['head-sha']}" must be a commit sha (hex)`);
  return {
    json: v.json ?? false,
    githubActions: v['github-actions'] ?? false,
    gitlab: v.gitlab ?? false,
    junit: v.junit,
    ciId: v['ci-id'],
    onlyOnAlert: v['ci-only-on-alert'] ?? false,
    failOnCiError: v['fail-on-ci-error'] ?? false,
    githubToken: v['github-token'],
    pr,
    headSha: v['head-sha'],
  };
}

const startPointOf = (env: TEnv, v: TCiValues) =>
  v['start-point'] ?? env.GITHUB_BASE_REF ?? env.CI_MERGE_REQUEST_TARGET_BRANCH_NAME;

const OPTIONS = {
  ...CI_OPTIONS,
  cluster: { type: 'string' },
  workload: { type: 'string' },
  tool: { type: 'string' },
  label: { type: 'string', multiple: true },
  'fail-on-regression': { type: 'boolean' },
  baseline: { type: 'string' },
  'verdict-metrics': { type: 'string' },
  confirm: { type: 'string' },
  repo: { type: 'string' },
  branch: { type: 'string' },
  sha: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parseCommon(args: string[], allowPositionals: boolean) {
  const { values, positionals } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals });
  if (values.help) return { help: true as const };
  if (!values.cluster) throw new UsageError('--cluster is required');
  if (!values.workload) throw new UsageError('--workload is required');
  let tool: TFormat | undefined;
  if (values.tool !== undefined) {
    const t = ZFormat.safeParse(values.tool);
    if (!t.success) throw new UsageError(`--tool "${values.tool}" must be one of ${FORMATS.join(', ')}`);
    tool = t.data;
  }
  let verdictMetrics: string[] | undefined;
  if (values['verdict-metrics'] !== undefined) {
    const v = ZVerdictMetricsParam.safeParse(values['verdict-metrics']);
    if (!v.success || v.data.length === 0)
      throw new UsageError(
        `--verdict-metrics "${values['verdict-metrics']}" must be comma-separated metric names or kinds (${METRIC_KINDS.join(', ')})`,
      );
    verdictMetrics = v.data;
  }
  return {
    help: false as const,
    values,
    positionals,
    tool,
    verdictMetrics,
    labels: parseLabels(values.label ?? []),
  };
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  const env = readEnv();
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    console.log(MAIN_HELP);
    return cmd ? 0 : 2;
  }
  if (cmd === '--version' || cmd === '-v') {
    console.log(AGENT_VERSION);
    return 0;
  }
  const io = {
    out: (c: Buffer | string) => process.stdout.write(c),
    err: (c: Buffer | string) => process.stderr.write(c),
  };
  if (cmd === 'run') {
    const sep = rest.indexOf('--');
    const own = sep < 0 ? rest : rest.slice(0, sep);
    const toolArgv = sep < 0 ? [] : rest.slice(sep + 1);
    const p = parseCommon(own, false);
    if (p.help) {
      console.log(RUN_HELP);
      return 0;
    }
    if (toolArgv.length === 0)
      throw new UsageError('no tool given: put the command after "--", e.g. -- sysbench cpu run');
    const confirm = p.values.confirm === undefined ? undefined : Number(p.values.confirm);
    if (confirm !== undefined && !(Number.isInteger(confirm) && confirm >= 1 && confirm <= 10))
      throw new UsageError(`--confirm "${p.values.confirm}" must be a whole number from 1 to 10`);
    const server = requireServer(env);
    const api = new ApiClient(server.url, server.token);
    const ciOpts = toCiOptions(p.values);
    const git = gitInfo(env, p.values);
    if (!git?.branch) warnNoBranch();
    return runBenchmark(
      api,
      {
        cluster: p.values.cluster!,
        workload: p.values.workload!,
        tool: p.tool ?? detectToolFromArgv(toolArgv),
        labels: p.labels,
        git,
        failOnRegression: p.values['fail-on-regression'] ?? false,
        baseline: p.values.baseline,
        verdictMetrics: p.verdictMetrics,
        startPoint: startPointOf(env, p.values),
        ci: new CiPublisher(env, ciOpts, io),
        machine: collectMachine(env),
        argv: toolArgv,
        confirm,
      },
      {
        ...io,
        // With --json, stdout carries the report alone.
        ...(ciOpts.json ? { out: io.err } : {}),
        onSignal: (handler) => {
          const h = (sig: NodeJS.Signals) => handler(sig);
          process.on('SIGINT', h);
          process.on('SIGTERM', h);
          return () => {
            process.off('SIGINT', h);
            process.off('SIGTERM', h);
          };
        },
      },
    );
  }
  if (cmd === 'submit') {
    const p = parseCommon(rest, true);
    if (p.help) {
      console.log(SUBMIT_HELP);
      return 0;
    }
    if (p.values.confirm !== undefined)
      throw new UsageError('--confirm re-runs the tool: use it with clusterscope run');
    if (p.positionals.length !== 1) throw new UsageError('give exactly one output file (or "-" for stdin)');
    const file = p.positionals[0];
    let output: string;
    try {
      output = readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
    }
    const server = requireServer(env);
    const ciOpts = toCiOptions(p.values);
    const git = gitInfo(env, p.values);
    if (!git?.branch) warnNoBranch();
    return submitOutput(
      new ApiClient(server.url, server.token),
      {
        cluster: p.values.cluster!,
        workload: p.values.workload!,
        tool: p.tool,
        labels: p.labels,
        git,
        failOnRegression: p.values['fail-on-regression'] ?? false,
        baseline: p.values.baseline,
        verdictMetrics: p.verdictMetrics,
        startPoint: startPointOf(env, p.values),
        ci: new CiPublisher(env, ciOpts, io),
        machine: collectMachine(env),
        output,
        source: file === '-' ? 'stdin' : file,
      },
      ciOpts.json ? { ...io, out: io.err } : io,
    );
  }
  if (cmd === 'report') {
    const { values } = parseArgs({
      args: rest,
      options: {
        ...CI_OPTIONS,
        run: { type: 'string' },
        baseline: { type: 'string' },
        'fail-on-regression': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) {
      console.log(REPORT_HELP);
      return 0;
    }
    if (!values.run) throw new UsageError('--run is required (the id printed by run/submit, output run-id)');
    const server = requireServer(env);
    const api = new ApiClient(server.url, server.token);
    const { code } = await reportRun(api, new CiPublisher(env, toCiOptions(values), io), values.run, {
      baseline: values.baseline,
      startPoint: startPointOf(env, values),
      failOnRegression: values['fail-on-regression'] ?? false,
    });
    return code;
  }
  throw new UsageError(`unknown command "${cmd}" (expected run, submit or report)`);
}

function warnNoBranch() {
  console.error(
    'clusterscope: warning: no git branch (pass --branch, or run in CI): this run cannot join a branch baseline',
  );
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (
      e instanceof UsageError ||
      (e instanceof TypeError && (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
    ) {
      console.error(`clusterscope: ${(e as Error).message}\nRun "clusterscope --help" for usage.`);
      process.exitCode = 2;
    } else if (e instanceof UnreachableError) {
      console.error(
        `clusterscope: ${e.message}\n  → is CLUSTERSCOPE_URL (${e.url}) right and the server up?`,
      );
      process.exitCode = 1;
    } else if (e instanceof ApiError) {
      console.error(`clusterscope: ${e.message}`);
      process.exitCode = 1;
    } else {
      console.error(
        `clusterscope: unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
      );
      process.exitCode = 1;
    }
  },
);
