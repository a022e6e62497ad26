import type { TParseResult } from '@clusterscope/schema';
import { ParseError } from '../errors';
import { metricName } from './json-output';
import { ResultBuilder, splitLines, toNumber } from './result-builder';

/** `go test -bench` units → metric base names (custom b.ReportMetric units keep their own name). */
const UNITS: Record<string, string> = {
  'ns/op': 'ns_per_op',
  'B/op': 'bytes_per_op',
  'allocs/op': 'allocs_per_op',
  'MB/s': 'mb_per_s',
};

const INTERESTING = new Set([...'poPF-B'].map((c) => c.charCodeAt(0)));

/**
 * `go test -bench` text: `BenchmarkName-8  <N>  <value> <unit> …` lines, one metric per benchmark and
 * unit (the -GOMAXPROCS suffix dropped); `--- FAIL`/`FAIL` lines make the run failed.
 */
export function parseGoBench(output: string): TParseResult {
  const b = new ResultBuilder('go-bench');
  b.workload = 'go-bench';
  const counts = new Map<string, number>();
  /** Values by repetition (-count): repetition k of every benchmark is sample k. */
  const reps: Record<string, number>[] = [];
  const lines = splitLines(output);
  let sawResult = false;
  let sawEnd = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    // Only lines starting p(kg:/anic:), o(k), P(ASS), F(AIL), -(-- FAIL) or B(enchmark) matter: one check skips the rest.
    if (!INTERESTING.has(line.charCodeAt(0))) continue;
    if (/^pkg: /.test(line) && b.workload === 'go-bench') b.workload = line.slice(5).trim().slice(0, 128);
    if (/^(ok|PASS$|FAIL)/.test(line)) sawEnd = true;
    if (/^(--- FAIL|FAIL)\b/.test(line) && !b.error) b.error = line.trim();
    if (/^panic: /.test(line) && !b.error) b.error = line.trim();
    if (!line.startsWith('Benchmark')) continue;
    const fields = line.trim().split(/\s+/);
    // A benchmark that logged or failed prints its name alone; its result line follows later.
    if (fields.length < 4) continue;
    const iterations = toNumber(fields[1]);
    if (iterations === null || !Number.isInteger(iterations))
      throw new ParseError(
        `go-bench: line ${i + 1}: "${fields[1].slice(0, 40)}" is not an iteration count`,
        'go test -bench output with an unreadable result line',
        'go-bench',
      );
    const name = fields[0].replace(/-\d+$/, '');
    // The same benchmark run -count times: each run a sample, the mean as the summary.
    const n = (counts.get(name) ?? 0) + 1;
    counts.set(name, n);
    for (let k = 2; k + 1 < fields.length; k += 2) {
      const v = toNumber(fields[k]);
      if (v === null)
        throw new ParseError(
          `go-bench: line ${i + 1}: "${fields[k].slice(0, 40)}" is not a number`,
          'go test -bench output with an unreadable result line',
          'go-bench',
        );
      const unit = fields[k + 1];
      const metric = metricName(name, UNITS[unit] ?? unit.replace(/[^\w/%]/g, '_'));
      (reps[n - 1] ??= {})[metric] = v;
      sawResult = true;
    }
  }
  // Summary: the mean of each metric over its -count repetitions.
  const sums = new Map<string, { sum: number; n: number }>();
  for (const values of reps)
    for (const [k, v] of Object.entries(values)) {
      const a = sums.get(k) ?? { sum: 0, n: 0 };
      a.sum += v;
      a.n++;
      sums.set(k, a);
    }
  for (const [k, a] of sums) {
    const unit =
      Object.entries(UNITS).find(([, base]) => k.endsWith(`.${base}`))?.[0] ??
      k.slice(k.lastIndexOf('.') + 1);
    b.metric(k, a.sum / a.n, unit);
  }
  // With -count ≥ 2 every repetition is a sample, so the verdict can test them; one run is summary only.
  if (reps.length >= 2) reps.forEach((values, k) => b.sample(k, values));
  if (sawResult && !sawEnd) b.markIncomplete('go test output ends before "PASS"/"ok"/"FAIL"');
  return b.build('go test output without Benchmark result lines');
}
