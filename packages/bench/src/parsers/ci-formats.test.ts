import { describe, expect, it } from 'vitest';
import { ParseError } from '../errors';
import { detectTool, parseOutput } from './parse-output';
import { expectMetrics, readFixture } from './fixture.test-helper';

const fixture = (name: string) => readFixture(`ci-formats/${name}`);

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
    const out = fixture('bmf_reference.json');
    expect(detectTool(out)).toBe('bmf');
    const r = parseOutput(out);
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
    const out = fixture('go_output.txt');
    expect(detectTool(out)).toBe('go-bench');
    const r = parseOutput(out);
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
    const out = fixture('googlecpp_output.json');
    expect(detectTool(out)).toBe('google-benchmark');
    const r = parseOutput(out);
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
    const out = fixture('pytest_output.json');
    expect(detectTool(out)).toBe('pytest-benchmark');
    const r = parseOutput(out);
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
