import type { TParseResult, TStatementLatency } from '@clusterscope/schema';
import { ResultBuilder, splitLines, toNumber } from './result-builder';

const PROGRESS = /^progress: ([\d.]+) s, ([\d.]+) tps, lat ([\d.]+) ms stddev ([\d.]+|NaN)(.*)/;
/** The starts of every line read below: one test skips any other line (a flood of short lines stays cheap). */
const KNOWN =
  /^(?:progress: |statement latencies|transaction type: |number of |latency |initial connection|rate limit|tps = |pgbench: |client \d|ERROR:|FATAL:|Run was aborted)/;
/** pgbench's last line when a client aborted: bare up to 12, after `pgbench: fatal: ` in 13, `pgbench: error: ` since 14. */
const ABORTED = 'Run was aborted; the above results are incomplete.';
const BUILTIN: Record<string, string> = {
  'TPC-B (sort of)': 'tpcb-like',
  'select only': 'select-only',
  'simple update': 'simple-update',
};

function parseWorkload(type: string): string {
  const builtin = /^<builtin: (.*)>$/.exec(type);
  if (builtin) return BUILTIN[builtin[1]] ?? builtin[1];
  return type;
}

/** pgbench 9.6-17: `-P` progress lines, final summary, `-r` per-statement latencies. */
export function parsePgbench(output: string): TParseResult {
  const b = new ResultBuilder('pgbench');
  const statements: TStatementLatency[] = [];
  let statementCols = -1;
  let prevElapsed = 0;
  let tpsExcluding: number | null = null;
  let tpsOther: number | null = null;
  let aborted = false;
  // The server's message (`FATAL:  terminating connection …`) is the reason only when pgbench gave none.
  let serverError: string | undefined;
  for (const raw of splitLines(output)) {
    const line = raw.trimEnd();
    if (line === '') {
      statementCols = -1;
      continue;
    }
    if (statementCols >= 0) {
      const m = /^\s+([\d.]+)\s+(\S.*)$/.exec(line);
      if (m) {
        let rest = m[2];
        let failures: number | null = null;
        for (let i = 0; i < statementCols; i++) {
          const col = /^(\d+)\s+(\S.*)$/.exec(rest);
          if (!col) break;
          if (i === 0) failures = toNumber(col[1]);
          rest = col[2];
        }
        const latency = toNumber(m[1]);
        if (latency !== null)
          statements.push({ statement: rest.slice(0, 4096), latency_ms: latency, failures });
        continue;
      }
      statementCols = -1;
    }
    if (!KNOWN.test(line)) continue;
    const progress = PROGRESS.exec(line);
    if (progress) {
      const elapsed = toNumber(progress[1]);
      const rest = progress[5];
      const failed = toNumber(/(?<!\d)(\d+) failed/.exec(rest)?.[1]);
      const dt = elapsed !== null ? elapsed - prevElapsed : 0;
      const tps = toNumber(progress[2]);
      // An interval with no transactions has no latency (pgbench prints 0.000): missing, so a chart shows a gap.
      const idle = tps === 0;
      b.sample(elapsed, {
        tps,
        lat_avg_ms: idle ? null : toNumber(progress[3]),
        lat_stddev_ms: idle ? null : toNumber(progress[4]),
        lag_ms: toNumber(/lag ([\d.]+) ms/.exec(rest)?.[1]),
        errors_per_s: failed !== null && dt > 0 ? failed / dt : null,
      });
      if (elapsed !== null) prevElapsed = elapsed;
      continue;
    }
    const statementHeader = /^statement latencies in milliseconds(.*):$/.exec(line);
    if (statementHeader) {
      statementCols = (statementHeader[1].match(/failures|retries/g) ?? []).length;
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = /^transaction type: (.*)$/.exec(line))) b.workload = parseWorkload(m[1]);
    else if ((m = /^number of transactions actually processed: (\d+)/.exec(line)))
      b.metric('transactions', toNumber(m[1]));
    else if ((m = /^number of failed transactions: (\d+) \(([\d.]+)%\)/.exec(line))) {
      b.metric('errors', toNumber(m[1]));
      b.metric('errors_pct', toNumber(m[2]));
    } else if ((m = /^latency average = ([\d.]+) ms/.exec(line))) b.metric('lat_avg_ms', toNumber(m[1]));
    else if ((m = /^latency stddev = ([\d.]+) ms/.exec(line))) b.metric('lat_stddev_ms', toNumber(m[1]));
    else if ((m = /^initial connection time = ([\d.]+) ms/.exec(line)))
      b.metric('conn_time_ms', toNumber(m[1]));
    else if ((m = /^rate limit schedule lag: avg ([\d.]+)/.exec(line))) b.metric('lag_ms', toNumber(m[1]));
    else if ((m = /^tps = ([\d.]+) \((.*)\)/.exec(line))) {
      if (/without|excluding/.test(m[2])) tpsExcluding = toNumber(m[1]);
      else tpsOther = toNumber(m[1]);
    } else if (/^(pgbench: (error|fatal)|client \d+ aborted|ERROR:|FATAL:|Run was aborted)/.test(line)) {
      b.warnings.push(line.slice(0, 300));
      if (line.endsWith(ABORTED)) aborted = true;
      // pgbench exits non-zero after any of these (a client aborted, no connection): the run failed.
      if (line.startsWith('ERROR:') || line.startsWith('FATAL:')) serverError ??= line.slice(0, 300);
      else b.error ??= line.slice(0, 300);
    }
  }
  b.error ??= serverError;
  b.metric('tps', tpsExcluding ?? tpsOther);
  b.statements = statements;
  if (!b.workload) b.workload = 'pgbench';
  if (tpsExcluding === null && tpsOther === null)
    b.markIncomplete('pgbench output ends before the "tps = " line');
  // The totals count only the clients that kept running, over the whole duration: not a comparable result.
  else if (aborted) b.markIncomplete('pgbench: a client aborted, so its totals cover only the clients left');
  return b.build('pgbench text, but no progress lines ("progress: 1.0 s, ...") and no summary');
}
