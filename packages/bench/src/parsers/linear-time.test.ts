import fc from 'fast-check';
import type { TParseResult } from '@clusterscope/schema';
import { describe, expect, it } from 'vitest';
import { ParseError } from '../errors';
import { readFixture } from './fixture.test-helper';
import { parseBenchbase } from './benchbase';
import { parseBmf } from './bmf';
import { parseCockroachWorkload } from './cockroach';
import { parseFio } from './fio';
import { parseGoBench } from './go-bench';
import { parseGoogleBenchmark } from './google-benchmark';
import { parseHey } from './hey';
import { parseHyperfine } from './hyperfine';
import { parseK6 } from './k6';
import { detectTool, parseOutput } from './parse-output';
import { parsePgbench } from './pgbench';
import { parsePytestBenchmark } from './pytest-benchmark';
import { parseSysbench } from './sysbench';
import { parseWrk } from './wrk';
import { parseYcsb } from './ycsb';

// Every parser reads untrusted text (CI posts it): a super-linear regex lets one request hold a thread for
// minutes. Each input is tried at 16 KB first (a quadratic parser already takes seconds there, so the test fails
// fast instead of hanging) and then at 1 MB; each must parse in under 100 ms.
const SIZES = [16 * 1024, 1024 * 1024];
const BUDGET_MS = 100;

const PARSERS: [string, (s: string) => unknown][] = [
  ['sysbench', parseSysbench],
  ['cockroach-workload', parseCockroachWorkload],
  ['pgbench', parsePgbench],
  ['fio', parseFio],
  ['wrk', parseWrk],
  ['hey', parseHey],
  ['bmf', parseBmf],
  ['go-bench', parseGoBench],
  ['google-benchmark', parseGoogleBenchmark],
  ['pytest-benchmark', parsePytestBenchmark],
  ['hyperfine', parseHyperfine],
  ['k6', parseK6],
  ['benchbase', parseBenchbase],
  ['ycsb', parseYcsb],
  ['detectTool', detectTool],
];

/**
 * CPU milliseconds (this process's, so time spent waiting for a shared core does not count), best of three
 * (one slow run is a collector or a cache, three are the parser).
 */
function timeParse(parse: (s: string) => unknown, text: string): number {
  let best = Infinity;
  for (let i = 0; i < 3 && best >= BUDGET_MS; i++) {
    const t0 = process.cpuUsage();
    try {
      parse(text);
    } catch (err) {
      if (!(err instanceof ParseError)) throw err;
    }
    const used = process.cpuUsage(t0);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

/** `head + pad × n + tail`, with n chosen so the text is `size` characters. */
const grow = (head: string, pad: string, tail: string, size: number) =>
  head + pad.repeat(Math.max(1, Math.ceil((size - head.length - tail.length) / pad.length))) + tail;

const COCKROACH_HEADER =
  '_elapsed___errors__ops/sec(inst)___ops/sec(cum)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)\n';

/** Inputs that made the old regexes backtrack (found with recheck, and those named in issue 36). */
const ADVERSARIAL: [string, string, string][] = [
  ['Summary:\n', ' ', 'x'],
  ['Summary:\n  Total:', ' ', 'x'],
  ['Error distribution:\n  [1]\t', '\t', '\r'],
  ['Response time histogram:\n  ', '1', ' ['],
  ['fio-3.33\nread: IOPS=1, BW=1KiB/s\nclat percentiles (usec):\n |', '1', ''],
  ['fio-3.33\n', '0', '0]0th=[0]'],
  ['sysbench 1.0.20\n', ' ', '('],
  ['sysbench 1.0.20\n', ' ', ': 1 (1 per sec.)x'],
  ['p', 'sysbench\tf', '\n'],
  ['SQL statistics:\n', '\n', 'a\nread:\n0'],
  ['SQL statistics:\n\u0000', '\n\t', '\n0'],
  [COCKROACH_HEADER + '0.s\t', '\t', '\t.s\r'],
  [COCKROACH_HEADER + '1.0s', ' 1', '\r'],
  ['progress: 1.0 s, 1 tps, lat 1 ms stddev 1', '.', '\r'],
  ['pgbench (15.1)\n', '0', ''],
  ['pgbench (15.1)\n', 'statement latencies in milliseconds', '\r'],
  ['Running 1s test @ x\n\tLatency\t.', '0', '0t\t.0t\r'],
  ['Running 1s test @ x\n\t0 requests in .', '0', '0 requests in 0r,'],
  ['Running .', '0', ''],
  ['h', '\n\t', '\n'],
  ['', '\n', '\nnpgbench\t'],
  ['e', '\n\t', '\nAvg'],
  ['Summary:\n', '\n\n', '\t'],
  ['', '\n', '\u0000\n'],
  ['x', ' \r', 'x'],
  ['', 'a:', ''],
  ['[OVERALL], ', ' ', 'x'],
  ['[READ], ', '1', 'PercentileLatency('],
  ['[A', '-', '], 1'],
  ['[READ], ', '], ', ', 1'],
  ['2017-05-20 18:55:44:512 10 sec: 1 operations; 1 current ops/sec; ', '[', ']'],
  ['2017-05-20 18:55:44:512 10 sec: 1 operations; 1 current ops/sec; ', '[R: ', 'x'],
  ['2017-05-20 18:55:44:512 10 sec: 1 operations; 1 current ops/sec; ', '[R: A=1]', ''],
  ['READ - Takes(s): 1', ', Count: 1', ''],
  ['TOTAL ', ' ', '- Takes(s): 1, Count: '],
  ['{"results": [', '{"command": "x", "mean": 1, "times": [1, 2]}, ', '{}]}'],
  ['{"metrics": {', '"a": {"avg": 1}, ', '"b": {}}}'],
  ['{"Throughput (requests/second)": 1, "x": "', 'a', '"}'],
  ['{"a": ', '[', ''],
];

/** A few of the characters and words the parsers look for. */
const TOKENS = [
  ' ', '\t', '\n', '\r', '0', '1', '.', ':', '|', '[', ']', '(', ')', '%', ',', '/', '_', 's', 'x', '=', '"',
  'ms', 'us', 'th=[', 'per sec.)', 'Latency', 'Total:', 'Summary:', 'sysbench ', 'pgbench ', 'fio-', 'tps: ',
  '_elapsed__', 'errors', 'progress: ', ' failed', 'read: IOPS=', 'Requests/sec:', '{', '}', ' secs', '[ 1s ] ',
]; // prettier-ignore

/** Words of the CI formats' parsers (bmf … ycsb), tried against those parsers. */
const CI_TOKENS = [
  ' ', '\n', '0', '1', '.', '[', ']', '{', '}', '"', ',', ':', '[OVERALL], ', '], ', ', ', ': ', ' - Takes(s): ',
  'Run finished, takes ', ' sec: ', ' current ops/sec', 'PercentileLatency(us)', '"results": [', '"metrics": {',
  'Benchmark', ' ns/op', '"value": ', 'TOTAL ', 'Count=', '\\',
]; // prettier-ignore
const CI_FORMATS = new Set([
  'bmf',
  'go-bench',
  'google-benchmark',
  'pytest-benchmark',
  'hyperfine',
  'k6',
  'benchbase',
  'ycsb',
]);

const patternOf = (tokens: string[]) =>
  fc.array(fc.constantFrom(...tokens), { minLength: 1, maxLength: 6 }).map((t) => t.join(''));
const pattern = patternOf(TOKENS);
const ciPattern = patternOf(CI_TOKENS);
const fixtures = fc.constantFrom(
  '',
  readFixture('hey.txt'),
  readFixture('fio_randrw.txt'),
  readFixture('sysbench_oltp_read_only_pgsql.txt'),
  readFixture('cockroach_workload_bank.txt'),
  readFixture('pgbench_tpcb.txt'),
  readFixture('wrk_latency.txt'),
  readFixture('ci-formats/go_output.txt'),
  readFixture('ci-formats/hyperfine_sleep.json'),
  readFixture('ci-formats/k6_handle_summary.json'),
  readFixture('ci-formats/benchbase_tpcc_sqlite.summary.json'),
  readFixture('ci-formats/ycsb_redis_workloada.txt'),
  readFixture('ci-formats/ycsb_aerospike_status.txt'),
  readFixture('ci-formats/go_ycsb_scylla_insert.txt'),
);

function expectLinear(
  parse: (s: string) => unknown,
  make: (size: number) => string,
  budgetMs = BUDGET_MS,
): void {
  for (const size of SIZES) {
    const text = make(size);
    const ms = timeParse(parse, text);
    expect(ms, `${text.length} chars starting ${JSON.stringify(text.slice(0, 60))}`).toBeLessThan(budgetMs);
  }
}

describe.each(PARSERS)(
  '%s runs in linear time',
  (_, parse) => {
    it.each(ADVERSARIAL)('on %j + pad %j × n + %j', (head, pad, tail) => {
      expectLinear(parse, (size) => grow(head, pad, tail, size));
    });

    it('on random token patterns repeated to 1 MB, after a fixture (property)', () => {
      fc.assert(
        fc.property(fixtures, pattern, pattern, (head, pad, tail) => {
          expectLinear(parse, (size) => grow(head, pad, tail, size));
        }),
        { numRuns: 25, seed: 36 },
      );
    });

    it('on random text up to 1 MB (property)', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 64 }), (s) => {
          expectLinear(parse, (size) => s.repeat(Math.ceil(size / s.length)));
        }),
        { numRuns: 10, seed: 2 },
      );
    });
  },
  120_000,
);

describe.each(PARSERS.filter(([name]) => CI_FORMATS.has(name)))(
  '%s runs in linear time on its own words',
  (_, parse) => {
    it('on random CI-format token patterns repeated to 1 MB, after a fixture (property)', () => {
      fc.assert(
        fc.property(fixtures, ciPattern, ciPattern, (head, pad, tail) => {
          expectLinear(parse, (size) => grow(head, pad, tail, size));
        }),
        { numRuns: 25, seed: 40 },
      );
    });
  },
  120_000,
);

// parseOutput detects the tool, parses, and parses an incomplete output once more without its cut last line.
describe('parseOutput runs in linear time', () => {
  it.each(ADVERSARIAL)('on %j + pad %j × n + %j', (head, pad, tail) => {
    expectLinear(
      (s) => parseOutput(s),
      (size) => grow(head, pad, tail, size),
      3 * BUDGET_MS,
    );
  });
}, 120_000);

describe('a parse result is the same when a line is padded', () => {
  it('still reads padded summary lines', () => {
    const r = parseHey(
      readFixture('hey.txt').replace('  Total:', `  Total:${' '.repeat(1000)}`),
    ) as TParseResult;
    expect(r.summary.find((m) => m.name === 'duration_s')?.value).toBeGreaterThan(0);
  });
});
