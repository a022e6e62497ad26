import { type TFormat, type TParseResult, FORMATS, ZParseResult } from '@clusterscope/schema';
import { ParseError } from '../errors';
import { parseBenchbase } from './benchbase';
import { parseBmf } from './bmf';
import { parseCockroachWorkload } from './cockroach';
import { parseFio } from './fio';
import { parseGoBench } from './go-bench';
import { parseGoogleBenchmark } from './google-benchmark';
import { parseHey } from './hey';
import { parseHyperfine } from './hyperfine';
import { parseK6 } from './k6';
import { parsePgbench } from './pgbench';
import { parsePytestBenchmark } from './pytest-benchmark';
import { parseSysbench } from './sysbench';
import { parseWrk } from './wrk';
import { parseYcsb } from './ycsb';

const PARSERS: Record<TFormat, (output: string) => TParseResult> = {
  sysbench: parseSysbench,
  'cockroach-workload': parseCockroachWorkload,
  pgbench: parsePgbench,
  fio: parseFio,
  wrk: parseWrk,
  hey: parseHey,
  bmf: parseBmf,
  'go-bench': parseGoBench,
  'google-benchmark': parseGoogleBenchmark,
  'pytest-benchmark': parsePytestBenchmark,
  hyperfine: parseHyperfine,
  k6: parseK6,
  benchbase: parseBenchbase,
  ycsb: parseYcsb,
};

/** Lines or fragments that only one tool prints. */
const SIGNATURES: Record<TFormat, RegExp[]> = {
  sysbench: [
    /^sysbench \d/m,
    /^\[\s*\d+s \] (thds:|reads:|[\d.]+ MiB\/sec)/m,
    /^SQL statistics:/m,
    /^Threads fairness:/m,
    /^CPU speed:/m,
    /^\S*[ \t]*sysbench\s/m,
  ],
  'cockroach-workload': [/^_elapsed_{2,}(errors|tpmC)/m, /workload run \w+/, /^Audit check [\d.]+:/m],
  pgbench: [
    /^pgbench \(\d/m,
    /^progress: [\d.]+ s, [\d.]+ tps, lat/m,
    /^transaction type: /m,
    /^number of transactions actually processed:/m,
    /^\S*[ \t]*pgbench\s/m,
  ],
  fio: [
    /"fio version"\s*:/,
    /^fio-\d/m,
    /^\S+: \(groupid=\d+, jobs=\d+\)/m,
    /^\S+: \(g=\d+\): rw=/m,
    /^Run status group \d/m,
  ],
  wrk: [
    /^Running [\d.]+[a-z]+ test @ /m,
    /^[ \t]+Thread Stats[ \t]+Avg/m,
    /^Requests\/sec:\s/m,
    /^Transfer\/sec:\s/m,
  ],
  hey: [
    /^Summary:[ \t\r]*\n[ \t]+Total:\s/m,
    /^Response time histogram:/m,
    /^Status code distribution:/m,
    /^Details \(average, fastest, slowest\):/m,
  ],
  bmf: [
    /^\s*\{\s*"[^"]*"\s*:\s*\{\s*"[^"]*"\s*:\s*\{\s*"value"\s*:/,
    /"lower_value"\s*:/,
    /"upper_value"\s*:/,
  ],
  'go-bench': [
    /^Benchmark\S+\s+\d+\s+[\d.]+ ns\/op/m,
    /^goos: \w+$/m,
    /^goarch: \w+$/m,
    /^ok\s+\S+\s+[\d.]+s$/m,
  ],
  'google-benchmark': [/"real_time"\s*:/, /"time_unit"\s*:/, /"mhz_per_cpu"\s*:/, /"library_build_type"\s*:/],
  'pytest-benchmark': [
    /"machine_info"\s*:/,
    /"commit_info"\s*:/,
    /"iqr_outliers"\s*:/,
    /"stddev_outliers"\s*:/,
  ],
  hyperfine: [/^\s*\{\s*"results"\s*:\s*\[/, /"exit_codes"\s*:/, /"command"\s*:/],
  k6: [/"root_group"\s*:/, /"testRunDurationMs"\s*:/, /"http_req_duration"\s*:/, /"iteration_duration"\s*:/],
  benchbase: [
    /"Throughput \(requests\/second\)"\s*:/,
    /"Goodput \(requests\/second\)"\s*:/,
    /"Latency Distribution"\s*:/,
  ],
  ycsb: [
    /^\[?OVERALL\], (RunTime|Throughput)/m,
    /^\[[A-Z-]+\], [\d.]*(th)?PercentileLatency\(/m,
    /^[A-Z_]+ +- Takes\(s\): [\d.]+, Count: /m,
    /^Run finished, takes /m,
    /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3} \d+ sec: \d+ operations;/m,
  ],
};

function scoreTools(output: string): [TFormat, number][] {
  return FORMATS.map((t): [TFormat, number] => [
    t,
    SIGNATURES[t].filter((re) => re.test(output)).length,
  ]).sort((a, b) => b[1] - a[1]);
}

/** The tool that most likely produced `output`, or null when none is recognised. */
export function detectTool(output: string): TFormat | null {
  if (typeof output !== 'string') return null;
  const [best] = scoreTools(output);
  return best && best[1] > 0 ? best[0] : null;
}

function describe(output: string): string {
  const text = output.trim();
  if (text === '') return 'nothing: the output is empty';
  const lines = text.split(/\r?\n/).length;
  const first = text.split(/\r?\n/, 1)[0].slice(0, 80);
  return `${lines} line(s) from no known tool (looked for ${FORMATS.join(', ')}); first line: "${first}"`;
}

/**
 * Parses a benchmark tool's output. Detects the tool when omitted.
 * Throws ParseError (with `recognised`) for empty or unrecognised output; never any other error.
 */
export function parseOutput(output: string, tool?: TFormat | null): TParseResult {
  if (typeof output !== 'string') throw new ParseError('output must be a string', `a ${typeof output}`);
  const chosen = tool ?? detectTool(output);
  if (!chosen) throw new ParseError('unrecognised benchmark output', describe(output));
  const parse = PARSERS[chosen];
  if (!parse)
    throw new ParseError(`unknown tool "${String(chosen)}"`, `tool must be one of ${FORMATS.join(', ')}`);
  let result: TParseResult;
  try {
    result = parse(output);
    // An interrupted run may end mid-line ("tps: 31" of "tps: 3154.62"): drop that partial last line.
    const cut = output.lastIndexOf('\n');
    if (result.incomplete && !/\n[ \t\r]*$/.test(output) && cut > 0) {
      try {
        result = parse(output.slice(0, cut + 1));
        result.warnings.push('incomplete: dropped the partial last line');
      } catch (err) {
        if (!(err instanceof ParseError)) throw err;
      }
    }
  } catch (err) {
    if (err instanceof ParseError) {
      const detected = detectTool(output);
      const hint = tool && detected && detected !== tool ? ` (the output looks like ${detected})` : '';
      throw new ParseError(
        err.message + hint,
        output.trim() === '' ? describe(output) : err.recognised + hint,
        chosen,
      );
    }
    throw new ParseError(
      `${chosen} parser failed: ${(err as Error).message}`,
      `${chosen} output it could not read`,
      chosen,
    );
  }
  const checked = ZParseResult.safeParse(result);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new ParseError(
      `${chosen} result is invalid at ${issue.path.join('.')}: ${issue.message}`,
      `${chosen} output with invalid values`,
      chosen,
    );
  }
  return checked.data;
}
