/** clusterscope: CI companion CLI (dist/clusterscope.js) — `run` and `submit`. */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { METRIC_KINDS, ZTool, ZVerdictMetricsParam, TOOLS, type TTool } from '@clusterscope/schema';
import { ApiClient, ApiError, UnreachableError } from '../cli/api-client';
import { detectToolFromArgv, gitInfo, parseLabels, requireServer, UsageError } from '../cli/common';
import { runBenchmark } from '../cli/run';
import { submitOutput } from '../cli/submit';
import { readEnv } from '../env';
import { AGENT_VERSION } from '../version';

const MAIN_HELP = `clusterscope ${AGENT_VERSION} — record benchmark runs in Clusterscope from CI.

Usage:
  clusterscope run    --cluster C --workload W [options] -- <tool> [tool args…]
  clusterscope submit --cluster C --workload W [options] <output.txt | ->
  clusterscope <command> --help

Environment:
  CLUSTERSCOPE_URL     Clusterscope base URL, e.g. https://clusterscope.example.com
  CLUSTERSCOPE_TOKEN   API token with the runs:write scope
Git metadata is taken from --repo/--branch/--sha or GitHub Actions / GitLab CI variables.`;

const COMMON_OPTS = `  --cluster C              cluster slug (required)
  --workload W             workload name, e.g. oltp_read_write, tpcc (required)
  --tool T                 ${TOOLS.join(' | ')} (default: detected)
  --label k=v              label the run; repeatable
  --fail-on-regression     compare with the baseline and exit 3 on a regression
  --baseline ID|BRANCH     baseline run id or branch for the comparison (server default otherwise)
  --verdict-metrics a,b    metrics and kinds (rate, latency, error_rate, count, setup, duration) that
                           can fail the run (default: the workload's, else rates, latencies, error rates)
  --repo URL --branch B --sha S   git metadata (default: from CI environment)
  -h, --help               this help`;

const RUN_HELP = `Usage: clusterscope run --cluster C --workload W [options] -- <tool> [tool args…]

Spawns the tool (no shell; argv exactly as given), shows its output, posts interval samples live,
then its full output, and finishes the run with the tool's status. Exits with the tool's exit code
(3 on a regression with --fail-on-regression).

Options:
${COMMON_OPTS}

Example:
  clusterscope run --cluster prod-east --workload oltp_read_write --label pr=123 --fail-on-regression \\
    -- sysbench oltp_read_write --threads=16 --time=60 --report-interval=1 run`;

const SUBMIT_HELP = `Usage: clusterscope submit --cluster C --workload W [options] <output.txt | ->

Posts a finished benchmark's output ("-" reads stdin) as a succeeded run and prints its summary.

Options:
${COMMON_OPTS}

Example:
  pgbench -P 1 -T 60 bench 2>&1 | tee out.txt; clusterscope submit --cluster ci --workload tpcb out.txt`;

const OPTIONS = {
  cluster: { type: 'string' },
  workload: { type: 'string' },
  tool: { type: 'string' },
  label: { type: 'string', multiple: true },
  'fail-on-regression': { type: 'boolean' },
  baseline: { type: 'string' },
  'verdict-metrics': { type: 'string' },
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
  let tool: TTool | undefined;
  if (values.tool !== undefined) {
    const t = ZTool.safeParse(values.tool);
    if (!t.success) throw new UsageError(`--tool "${values.tool}" must be one of ${TOOLS.join(', ')}`);
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
    const server = requireServer(env);
    const api = new ApiClient(server.url, server.token);
    return runBenchmark(
      api,
      {
        cluster: p.values.cluster!,
        workload: p.values.workload!,
        tool: p.tool ?? detectToolFromArgv(toolArgv),
        labels: p.labels,
        git: gitInfo(env, p.values),
        failOnRegression: p.values['fail-on-regression'] ?? false,
        baseline: p.values.baseline,
        verdictMetrics: p.verdictMetrics,
        argv: toolArgv,
      },
      {
        ...io,
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
    if (p.positionals.length !== 1) throw new UsageError('give exactly one output file (or "-" for stdin)');
    const file = p.positionals[0];
    let output: string;
    try {
      output = readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
    }
    const server = requireServer(env);
    return submitOutput(
      new ApiClient(server.url, server.token),
      {
        cluster: p.values.cluster!,
        workload: p.values.workload!,
        tool: p.tool,
        labels: p.labels,
        git: gitInfo(env, p.values),
        failOnRegression: p.values['fail-on-regression'] ?? false,
        baseline: p.values.baseline,
        verdictMetrics: p.verdictMetrics,
        output,
        source: file === '-' ? 'stdin' : file,
      },
      io,
    );
  }
  throw new UsageError(`unknown command "${cmd}" (expected run or submit)`);
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
