import type { TParseResult } from '@clusterscope/schema';
import { ParseError } from '../errors';
import { isObject, metricName, parseJsonOutput } from './json-output';
import { ResultBuilder } from './result-builder';

/** hyperfine's statistics (seconds) → metric base names. */
const STATS: [string, string][] = [
  ['mean', 'time_mean_s'],
  ['median', 'time_median_s'],
  ['min', 'time_min_s'],
  ['max', 'time_max_s'],
  ['stddev', 'time_stddev_s'],
  ['user', 'cpu_user_s'],
  ['system', 'cpu_system_s'],
];

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * A command's name: hyperfine substitutes its parameters (`--parameter-scan`, `-L`) into the command, so the
 * command names the benchmark unless a parameter does not appear in it (an environment variable, say).
 */
function commandName(row: Record<string, unknown>): string {
  const command = String(row.command);
  const params = isObject(row.parameters) ? Object.entries(row.parameters) : [];
  if (params.every(([, v]) => command.includes(String(v)))) return command;
  return `${command} (${params.map(([k, v]) => `${k}=${String(v)}`).join(', ')})`;
}

/**
 * hyperfine `--export-json`: one metric per command and statistic (seconds), each timed run a sample of
 * the command's mean so the verdict can test them. A run that exited non-zero (kept with
 * `--ignore-failure`) fails the run.
 */
export function parseHyperfine(output: string): TParseResult {
  const doc = parseJsonOutput(output, 'hyperfine', 'hyperfine output');
  if (!isObject(doc) || !Array.isArray(doc.results))
    throw new ParseError(
      'hyperfine: expected an object with a "results" array (hyperfine --export-json)',
      'JSON that is not hyperfine output',
      'hyperfine',
    );
  const b = new ResultBuilder('hyperfine');
  b.workload = 'hyperfine';
  const reps: Record<string, number>[] = [];
  for (const [i, row] of doc.results.entries()) {
    if (!isObject(row) || typeof row.command !== 'string')
      throw new ParseError(
        `hyperfine: results[${i}] has no "command"`,
        'hyperfine output with a bad entry',
        'hyperfine',
      );
    if (num(row.mean) === null)
      throw new ParseError(
        `hyperfine: results[${i}] ("${row.command.slice(0, 60)}").mean must be a number`,
        'hyperfine output without timings',
        'hyperfine',
      );
    const name = commandName(row);
    for (const [key, base] of STATS) b.metric(metricName(name, base), num(row[key]), 's');
    b.metric(metricName(name, 'max_rss_bytes'), maxOf(row.memory_usage_byte), 'B');
    const times = Array.isArray(row.times) ? row.times : [];
    const mean = metricName(name, 'time_mean_s');
    times.forEach((t, k) => {
      const v = num(t);
      if (v !== null) (reps[k] ??= {})[mean] = v;
    });
    const codes = Array.isArray(row.exit_codes) ? row.exit_codes : [];
    const failed = codes.filter((c) => c !== 0 && c !== null);
    if (failed.length) {
      const msg = `"${row.command.slice(0, 200)}": ${failed.length} of ${codes.length} runs exited non-zero (${[...new Set(failed)].slice(0, 5).join(', ')})`;
      b.error ??= msg;
      b.warnings.push(`error: ${msg}`);
    }
  }
  // Each timed run is a sample (as go test -count repetitions are): run k of every command is sample k.
  if (reps.length >= 2) reps.forEach((values, k) => b.sample(k, values));
  return b.build('hyperfine JSON without results');
}

function maxOf(v: unknown): number | null {
  if (!Array.isArray(v) || v.length === 0) return null;
  let m = -Infinity;
  for (const x of v) if (typeof x === 'number' && x > m) m = x;
  return Number.isFinite(m) ? m : null;
}
