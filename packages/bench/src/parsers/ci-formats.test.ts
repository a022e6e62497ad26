import { describe, expect, it } from 'vitest';
import { ParseError } from '../errors';
import { detectTool, parseOutput } from './parse-output';
import { expectMetrics, readFixture } from './fixture.test-helper';

const fixture = (name: string) => readFixture(`ci-formats/${name}`);

/** Parses a recorded fixture after checking that the format is detected from the output alone. */
function parseDetected(name: string, tool: ReturnType<typeof detectTool>) {
  const out = fixture(name);
  expect(detectTool(out)).toBe(tool);
  return parseOutput(out);
}

/** The ParseError message of parsing `output` as `tool`. */
function errorOf(output: string, tool?: Parameters<typeof parseOutput>[1]): string {
  try {
    parseOutput(output, tool);
  } catch (e) {
    expect(e).toBeInstanceOf(ParseError);
    return (e as Error).message;
  }
  throw new Error('parsed without error');
}

describe('bmf (Bencher Metric Format)', () => {
  it("reads Bencher's reference example: one metric per benchmark and measure, with built-in units", () => {
    const r = parseDetected('bmf_reference.json', 'bmf');
    expectMetrics(r, {
      'benchmark_name.latency': 88,
      'benchmark_name.throughput': 5.55,
      '/bin/sh -c ./my_build_script.sh.build-time': 87,
      'my_binary.file-size': 42,
    });
    const byName = Object.fromEntries(r.summary.map((m) => [m.name, m]));
    expect(byName['benchmark_name.latency']).toMatchObject({ unit: 'ns', direction: 'lower' });
    expect(byName['benchmark_name.throughput']).toMatchObject({ unit: 'ops/s', direction: 'higher' });
  });

  it('bad input names the line or the benchmark', () => {
    expect(errorOf('{\n  "a": {\n    "latency": { "value": 1, }\n  }\n}\n', 'bmf')).toMatch(
      /^bmf: invalid JSON at line 3, column \d+/,
    );
    expect(errorOf('{"a": {"latency": {"value": "fast"}}}', 'bmf')).toBe(
      'bmf: "a"."latency".value must be a number',
    );
    expect(errorOf('{"a": {"latency": {"value": 1}', 'bmf')).toMatch(/line 1.*truncated output\?/);
  });
});

describe('go-bench (go test -bench)', () => {
  it('reads the recorded output: ns/op per benchmark, -N suffix dropped, custom units kept', () => {
    const r = parseDetected('go_output.txt', 'go-bench');
    expect(r.incomplete).toBe(false);
    expect(r.error).toBeUndefined();
    expectMetrics(r, {
      'BenchmarkFib10.ns_per_op': 325,
      'BenchmarkFib20.ns_per_op': 40537.123,
      'BenchmarkFib/my_tabled_benchmark_-_10.ns_per_op': 325,
      'BenchmarkFib11.ns_per_op': 262.7,
      'BenchmarkFib11.auxMetricUnits': 3,
      'BenchmarkFib22.auxMetricUnits': 4,
    });
    expect(r.summary.find((m) => m.name === 'BenchmarkFib10.ns_per_op')).toMatchObject({
      unit: 'ns/op',
      direction: 'lower',
    });
  });

  it('-count repetitions become samples; a truncated output is incomplete; a FAIL fails the run', () => {
    const counted = [
      'goos: linux',
      'BenchmarkA-2  100  10 ns/op',
      'BenchmarkA-2  100  12 ns/op',
      'BenchmarkB-2  5  7 ns/op',
      'BenchmarkB-2  5  9 ns/op',
      'PASS',
      'ok  x 1.0s',
      '',
    ].join('\n');
    const r = parseOutput(counted, 'go-bench');
    expect(r.samples).toEqual([
      { elapsed_s: 0, values: { 'BenchmarkA.ns_per_op': 10, 'BenchmarkB.ns_per_op': 7 } },
      { elapsed_s: 1, values: { 'BenchmarkA.ns_per_op': 12, 'BenchmarkB.ns_per_op': 9 } },
    ]);
    expectMetrics(r, { 'BenchmarkA.ns_per_op': 11, 'BenchmarkB.ns_per_op': 8 });

    const cut = parseOutput(fixture('truncated_go_output.txt'), 'go-bench');
    expect(cut.incomplete).toBe(true);
    expect(cut.summary.some((m) => m.name === 'BenchmarkFib10.ns_per_op')).toBe(true);

    const failed = parseOutput(
      'BenchmarkA-2  100  10 ns/op\n--- FAIL: BenchmarkB-2\nFAIL\nFAIL\tx\t0.1s\n',
      'go-bench',
    );
    expect(failed.error).toBe('--- FAIL: BenchmarkB-2');
  });

  it('bad input names the line', () => {
    expect(errorOf('goos: linux\nBenchmarkA-2  many  10 ns/op\n', 'go-bench')).toBe(
      'go-bench: line 2: "many" is not an iteration count',
    );
    expect(errorOf('BenchmarkA-2  100  ten ns/op\n', 'go-bench')).toBe(
      'go-bench: line 1: "ten" is not a number',
    );
    expect(errorOf('PASS\nok x 0.1s\n', 'go-bench')).toMatch(/no go-bench interval lines or summary found/);
  });
});

describe('google-benchmark', () => {
  it('reads the recorded JSON: real and CPU time in ns per benchmark', () => {
    const r = parseDetected('googlecpp_output.json', 'google-benchmark');
    expect(r.workload).toBe('./a.out');
    expectMetrics(r, {
      'fib_10.real_time_ns': 214.98980114547953,
      'fib_10.cpu_time_ns': 213.65507206163295,
      'fib_20.real_time_ns': 27455.600415007055,
      'fib_20.cpu_time_ns': 27364.90320427236,
    });
  });

  it('time units are converted; an errored benchmark fails the run; a truncated file names its line', () => {
    const ms = JSON.stringify({ benchmarks: [{ name: 'x', real_time: 1.5, cpu_time: 1, time_unit: 'ms' }] });
    expectMetrics(parseOutput(ms, 'google-benchmark'), { 'x.real_time_ns': 1.5e6, 'x.cpu_time_ns': 1e6 });
    const err = JSON.stringify({
      benchmarks: [
        { name: 'ok', real_time: 1, cpu_time: 1, time_unit: 'ns' },
        { name: 'bad', error_occurred: true, error_message: 'setup failed' },
      ],
    });
    expect(parseOutput(err, 'google-benchmark').error).toBe('bad: setup failed');
    expect(errorOf(fixture('truncated_googlecpp_output.json'), 'google-benchmark')).toMatch(
      /^google-benchmark: invalid JSON at line \d+, column \d+ \(the file ends early: truncated output\?\)/,
    );
    expect(
      errorOf('{"benchmarks": [{"name": "x", "real_time": 1, "time_unit": "weeks"}]}', 'google-benchmark'),
    ).toBe('google-benchmark: benchmarks[0].time_unit "weeks" is not ns, us, ms or s');
  });
});

describe('pytest-benchmark', () => {
  it('reads the recorded JSON: time statistics in seconds and ops/s per test', () => {
    const r = parseDetected('pytest_output.json', 'pytest-benchmark');
    expect(r.workload).toBe('github-action-benchmark');
    expectMetrics(r, {
      'bench.py::test_fib_10.time_mean_s': 2.408868133322941e-5,
      'bench.py::test_fib_10.ops_per_s': 41513.272817492856,
      'bench.py::test_fib_20.time_median_s': 0.0029605825000003083,
      'bench.py::test_fib_20.time_max_s': 0.003903139999999805,
    });
  });

  it('bad input names the entry', () => {
    expect(errorOf('{"machine_info": {}, "benchmarks": [{"name": "t"}]}', 'pytest-benchmark')).toBe(
      'pytest-benchmark: benchmarks[0] needs "fullname" and "stats"',
    );
  });
});

describe('hyperfine (--export-json)', () => {
  it('reads the recorded JSON: time statistics per command in s, each timed run a sample of the mean', () => {
    const r = parseDetected('hyperfine_sleep.json', 'hyperfine');
    expect(r.error).toBeUndefined();
    expectMetrics(r, {
      'sleep 0.1.time_mean_s': 0.10753446442370372,
      'sleep 0.1.time_median_s': 0.10652535172000001,
      'sleep 0.1.time_stddev_s': 0.0032178771150522725,
      'sleep 0.1.cpu_user_s': 0.0007174962962962964,
      'sleep 0.2.time_max_s': 0.21412868472000002,
    });
    expect(r.summary.find((m) => m.name === 'sleep 0.2.time_mean_s')).toMatchObject({
      unit: 's',
      direction: 'lower',
    });
    // 27 runs of the first command, 13 of the second: sample k holds run k of each command that had one.
    expect(r.samples).toHaveLength(27);
    expect(r.samples[0].values).toEqual({
      'sleep 0.1.time_mean_s': 0.10586876872,
      'sleep 0.2.time_mean_s': 0.21231231072000004,
    });
    expect(r.samples[26].values).toEqual({ 'sleep 0.1.time_mean_s': 0.11127360172 });
  });

  it('a run that exited non-zero (--ignore-failure) fails the run; parameters name the command', () => {
    const out = JSON.stringify({
      results: [
        { command: 'grep x', mean: 0.01, times: [0.01, 0.01], exit_codes: [0, 2] },
        { command: 'curl $URL', mean: 0.2, parameters: { url: 'a' }, memory_usage_byte: [10, 30, 20] },
      ],
    });
    const r = parseOutput(out, 'hyperfine');
    expect(r.error).toBe('"grep x": 1 of 2 runs exited non-zero (2)');
    expectMetrics(r, { 'curl $URL (url=a).time_mean_s': 0.2, 'curl $URL (url=a).max_rss_bytes': 30 });
  });

  it('bad input names the line or the entry', () => {
    expect(errorOf('{\n  "results": [\n    {"command": "x", "mean": 1,}\n  ]\n}\n', 'hyperfine')).toMatch(
      /^hyperfine: invalid JSON at line 3, column \d+/,
    );
    expect(errorOf('{"results": [{"command": "sleep 1", "mean": "slow"}]}', 'hyperfine')).toBe(
      'hyperfine: results[0] ("sleep 1").mean must be a number',
    );
    expect(errorOf('{"results": [{"mean": 1}]}', 'hyperfine')).toBe('hyperfine: results[0] has no "command"');
    expect(errorOf('{"results": [{"command": "x", "mean": 1', 'hyperfine')).toMatch(
      /line 1.*truncated output\?/,
    );
  });
});

describe('k6 (--summary-export and handleSummary JSON)', () => {
  it('reads --summary-export: time trends as latencies in ms, http_reqs as requests/s, checks passed; crossed thresholds fail the run', () => {
    const r = parseDetected('k6_summary_export.json', 'k6');
    expectMetrics(r, {
      'my_trend.lat_avg_ms': 15,
      'my_trend.lat_p50_ms': 15,
      'my_trend.lat_p95_ms': 19.5,
      'my_trend.lat_p99_ms': 19.9,
      'http_reqs.requests': 3,
      'http_reqs.rps': 3,
      'checks.pass_pct': 75,
      'vus.max': 1,
    });
    expect(r.summary.find((m) => m.name === 'my_trend.lat_p95_ms')).toMatchObject({
      unit: 'ms',
      direction: 'lower',
    });
    expect(r.summary.find((m) => m.name === 'http_reqs.rps')).toMatchObject({
      unit: 'req/s',
      direction: 'higher',
    });
    // true = the threshold failed (k6 exits 99)
    expect(r.error).toBe('thresholds crossed: http_reqs rate<100; my_trend my_trend<1000');
  });

  it("reads handleSummary's data (values under `values`, the run's duration) the same way", () => {
    const r = parseDetected('k6_handle_summary.json', 'k6');
    expectMetrics(r, {
      'my_trend.lat_avg_ms': 15,
      'my_trend.lat_p95_ms': 19.5,
      'http_reqs.rps': 3,
      'checks.pass_pct': 75,
      duration_s: 1,
    });
    expect(r.error).toBe('thresholds crossed: my_trend my_trend<1000; http_reqs rate<100');
  });

  it('http_req_failed is the failed share in %; a non-time trend keeps its own statistics', () => {
    const out = JSON.stringify({
      metrics: {
        http_req_failed: { type: 'rate', contains: 'default', values: { rate: 0.02, passes: 2, fails: 98 } },
        queue_depth: { type: 'trend', contains: 'default', values: { avg: 4, 'p(95)': 9 } },
        'http_req_duration{expected_response:true}': { avg: 140.36, 'p(99.99)': 300 },
      },
    });
    expectMetrics(parseOutput(out, 'k6'), {
      'http_req_failed.errors_pct': 2,
      'queue_depth.avg': 4,
      'queue_depth.p(95)': 9,
      'http_req_duration{expected_response:true}.lat_avg_ms': 140.36,
      'http_req_duration{expected_response:true}.lat_p9999_ms': 300,
    });
  });

  it('bad input names the line or the metric', () => {
    expect(errorOf('{\n "metrics": {\n  "vus": {"value": 1,,}\n }\n}', 'k6')).toMatch(
      /^k6: invalid JSON at line 3, column \d+/,
    );
    expect(errorOf('{"metrics": {"vus": 3}}', 'k6')).toBe('k6: metrics."vus" must be an object');
    expect(errorOf('{"root_group": {}}', 'k6')).toMatch(/^k6: expected an object with "metrics"/);
  });
});

describe('benchbase (result summary JSON)', () => {
  it('reads the recorded summary: throughput, goodput, latency distribution in ms, the benchmark as workload', () => {
    const r = parseDetected('benchbase_tpcc_sqlite.summary.json', 'benchbase');
    expect(r.workload).toBe('tpcc');
    expect(r.error).toBeUndefined();
    expectMetrics(r, {
      tps: 1751.193076636597,
      goodput_tps: 1743.3265159390583,
      lat_avg_ms: 0.567,
      lat_p50_ms: 0.532,
      lat_p95_ms: 1.178,
      lat_p99_ms: 1.517,
      lat_max_ms: 12.071,
      errors_pct: expect.closeTo((1 - 1743.3265159390583 / 1751.193076636597) * 100, 9),
    });
  });

  it('a final state other than DONE/EXIT fails the run; measured requests and elapsed time are kept', () => {
    const r = parseOutput(
      JSON.stringify({
        'Throughput (requests/second)': 100,
        'Goodput (requests/second)': 90,
        'Measured Requests': 1000,
        'Elapsed Time (nanoseconds)': 10_000_000_000,
        'Final State': 'ERROR',
      }),
      'benchbase',
    );
    expectMetrics(r, { transactions: 1000, duration_s: 10, errors_pct: expect.closeTo(10, 9) });
    expect(r.error).toBe('BenchBase final state ERROR');
  });

  it('bad input names the line or the field', () => {
    expect(
      errorOf('{\n "Throughput (requests/second)": 1,\n "Goodput (requests/second)": x\n}', 'benchbase'),
    ).toMatch(/^benchbase: invalid JSON at line 3, column \d+/);
    expect(
      errorOf(
        '{"Throughput (requests/second)": 1, "Latency Distribution": {"Average Latency (microseconds)": "fast"}}',
        'benchbase',
      ),
    ).toBe('benchbase: "Latency Distribution"."Average Latency (microseconds)" must be a number, not "fast"');
    expect(errorOf('{"results": []}', 'benchbase')).toMatch(/^benchbase: expected a summary object/);
  });
});

describe('ycsb (Java YCSB and go-ycsb reports)', () => {
  it("reads Java YCSB's report: throughput, run time, per operation its count and latencies in ms; GC and CLEANUP skipped", () => {
    const r = parseDetected('ycsb_redis_workloada.txt', 'ycsb');
    expect(r.error).toBeUndefined();
    expectMetrics(r, {
      ops_per_s: 47865.21156423511,
      duration_s: 20.892,
      'read.ops': 499304,
      'read.lat_avg_ms': 1.6573425007610594,
      'read.lat_p95_ms': 4,
      'read.lat_p99_ms': 7,
      'read.lat_max_ms': 1483.188,
      'update.ops': 500696,
      'update.lat_min_ms': 0.069,
      errors: 0,
    });
    expect(r.summary.some((m) => m.name.startsWith('cleanup.') || m.name.startsWith('total_gc'))).toBe(false);
  });

  it('a report whose every operation failed fails the run (the recorded Riak run, its first "[" lost)', () => {
    const r = parseOutput(fixture('ycsb_riak_read_failed.txt'));
    expect(r.error).toBe('every operation failed (read: ERROR 1000)');
    expectMetrics(r, {
      duration_s: 250.501,
      ops_per_s: 3.992000031936,
      errors: 1000,
      errors_pct: 100,
      'read.ops': 0,
    });
    // READ never completed: no latencies (YCSB prints NaN, 0 and Long.MAX_VALUE for them)
    expect(r.summary.some((m) => m.name.startsWith('read.lat_'))).toBe(false);
  });

  it('-s status lines become interval samples; without the final report the run is incomplete', () => {
    const r = parseOutput(fixture('ycsb_aerospike_status.txt'));
    expect(r.incomplete).toBe(true);
    expect(r.samples.map((s) => s.elapsed_s)).toEqual([10, 20]);
    expect(r.samples[1].values).toMatchObject({
      ops_per_s: 62526.2,
      'read.lat_avg_ms': 0.36763,
      'insert.lat_p99_ms': 0.767,
    });
  });

  it('reads go-ycsb\'s report after "Run finished" (TOTAL is the run, _ERROR lines its errors) and its interval lines as samples', () => {
    const line = (op: string, t: number, n: number, ops: number, avg: number) =>
      `${op.padEnd(6)} - Takes(s): ${t.toFixed(1)}, Count: ${n}, OPS: ${ops.toFixed(1)}, Avg(us): ${avg}, Min(us): 100, Max(us): 9000, 50th(us): 300, 90th(us): 700, 95th(us): 800, 99th(us): 1200, 99.9th(us): 4000, 99.99th(us): 9000`;
    const out = [
      '***************** properties *****************',
      '"operationcount"="100000"',
      '**********************************************',
      line('READ', 10, 10000, 1000, 400),
      line('TOTAL', 10, 20000, 2000, 420),
      line('READ', 20, 21000, 1050, 410),
      line('TOTAL', 20, 42000, 2100, 430),
      'Run finished, takes 20.5s',
      line('READ', 20.5, 21500, 1048.8, 410),
      line('READ_ERROR', 20.4, 50, 2.5, 900),
      line('TOTAL', 20.5, 43000, 2097.6, 430),
      line('UPDATE', 20.5, 21450, 1046.3, 450),
      '',
    ].join('\n');
    expect(detectTool(out)).toBe('ycsb');
    const r = parseOutput(out);
    expect(r.incomplete).toBe(false);
    expectMetrics(r, {
      ops_per_s: 2097.6,
      duration_s: 20.5,
      lat_avg_ms: 0.43,
      lat_p99_ms: 1.2,
      'read.ops_per_s': 1048.8,
      'update.lat_avg_ms': 0.45,
      errors: 50,
      errors_per_s: 2.5,
      errors_pct: expect.closeTo((50 / 43000) * 100, 9),
    });
    expect(r.samples).toEqual([{ elapsed_s: 20, values: { 'read.ops_per_s': 1100, ops_per_s: 2200 } }]);
  });

  it('a go-ycsb run cut before "Run finished" (the recorded Scylla insert run) is incomplete, summarised from its last lines', () => {
    const r = parseOutput(fixture('go_ycsb_scylla_insert.txt'));
    expect(r.incomplete).toBe(true);
    expectMetrics(r, { 'insert.ops_per_s': 15562.3, 'insert.ops': 5913587, 'insert.lat_p99_ms': 198.655 });
    expect(r.samples[0]).toEqual({
      elapsed_s: 320,
      values: { 'insert.ops_per_s': expect.closeTo(5334.9, 6) },
    });
  });

  it('bad input names the line', () => {
    expect(errorOf('[OVERALL], RunTime(ms), 1000\n[OVERALL], Throughput(ops/sec), fast\n', 'ycsb')).toBe(
      'ycsb: line 2: "fast" is not a number',
    );
    expect(errorOf('[OVERALL], RunTime(ms)\n', 'ycsb')).toBe(
      'ycsb: line 1: expected "[SECTION], name, value"',
    );
    expect(errorOf('Run finished, takes 1s\nTOTAL  - Takes(s): 1.0, Count 5\n', 'ycsb')).toBe(
      'ycsb: line 2: "Count 5" is not "name: value"',
    );
    expect(errorOf('nothing here\n', 'ycsb')).toMatch(/no ycsb interval lines or summary found/);
  });
});

describe('linear time', () => {
  it('adversarial inputs parse within 100 ms', () => {
    const long = 'Benchmark' + 'a'.repeat(200_000) + ' 1 ';
    const nested = '{"a": {"b": {"value": ' + ' '.repeat(200_000);
    for (const [input, tool] of [
      [long, 'go-bench'],
      [nested, 'bmf'],
      ['{ "x": '.repeat(20_000), undefined],
    ] as const) {
      const t0 = performance.now();
      try {
        parseOutput(input, tool);
      } catch {
        // errors are fine; the time is what is tested
      }
      expect(performance.now() - t0).toBeLessThan(100);
    }
  });
});
