import type { TParseResult } from '@clusterscope/schema';
import { ParseError } from '../errors';
import { ResultBuilder, splitLines, toNumber } from './result-builder';

/** An operation's metric prefix: `READ-MODIFY-WRITE` → `read_modify_write`. */
const opName = (op: string) =>
  op
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 64);

/** Java YCSB's per-operation keys (latencies in the unit of their suffix) → metric base names. */
const JAVA_LATENCY: Record<string, string> = {
  AverageLatency: 'lat_avg_ms',
  MinLatency: 'lat_min_ms',
  MaxLatency: 'lat_max_ms',
};
/** go-ycsb's columns (µs) → metric base names. */
const GO_LATENCY: Record<string, string> = {
  'Avg(us)': 'lat_avg_ms',
  'Min(us)': 'lat_min_ms',
  'Max(us)': 'lat_max_ms',
  '50th(us)': 'lat_p50_ms',
  '90th(us)': 'lat_p90_ms',
  '95th(us)': 'lat_p95_ms',
  '99th(us)': 'lat_p99_ms',
  '99.9th(us)': 'lat_p999_ms',
  '99.99th(us)': 'lat_p9999_ms',
};
/** The status line's per-operation keys (µs) → metric base names. */
const STATUS_LATENCY: Record<string, string> = {
  Avg: 'lat_avg_ms',
  Max: 'lat_max_ms',
  '90': 'lat_p90_ms',
  '99': 'lat_p99_ms',
  '99.9': 'lat_p999_ms',
};

/** A status line has one group per operation type; more than this many is not YCSB's. */
const MAX_GROUPS = 32;

/** Sections of Java YCSB's report that are not operations of the workload. */
const SKIPPED = /^(TOTAL_GC|CLEANUP$)|-FAILED$/;

class YcsbReader {
  readonly b = new ResultBuilder('ycsb');
  /** Returns per operation of Java YCSB's report: ok and failed. */
  private readonly returns = new Map<string, { ok: number; failed: number; codes: string[] }>();
  private goTotal: Record<string, number> = {};
  /** go-ycsb's `<OP>_ERROR` lines: the latest count and rate of each. */
  private readonly goErrors = new Map<string, { count: number; ops: number }>();
  /** go-ycsb's cumulative count of each operation at its previous interval line, for per-interval rates. */
  private readonly goLast = new Map<string, { t: number; count: number }>();
  /** Java YCSB operations with 0 completed operations. */
  private readonly empty = new Set<string>();
  sawJava = false;
  sawGoFinal = false;
  sawGoInterval = false;

  constructor(private readonly lines: string[]) {}

  fail(i: number, what: string): never {
    throw new ParseError(`ycsb: line ${i + 1}: ${what}`, 'YCSB output with an unreadable line', 'ycsb');
  }

  number(i: number, text: string): number | null {
    const t = text.trim();
    if (t === 'NaN') return null; // an operation that never succeeded has no average
    const n = toNumber(t);
    if (n === null) this.fail(i, `"${t.slice(0, 40)}" is not a number`);
    return n;
  }

  /** `[READ], 99thPercentileLatency(us), 7000` (the first `[` may be lost when a report is copied). */
  javaLine(i: number, line: string, close: number): void {
    const section = line.slice(line[0] === '[' ? 1 : 0, close);
    const rest = line.slice(close + 3);
    const comma = rest.lastIndexOf(', ');
    if (comma < 0) this.fail(i, 'expected "[SECTION], name, value"');
    const key = rest.slice(0, comma).trim();
    const value = rest.slice(comma + 2);
    this.sawJava = true;
    if (section === 'OVERALL') {
      if (key === 'RunTime(ms)') {
        const ms = this.number(i, value);
        this.b.metric('duration_s', ms === null ? null : ms / 1000, 's');
      } else if (key === 'Throughput(ops/sec)') this.b.metric('ops_per_s', this.number(i, value), 'ops/s');
      return;
    }
    if (SKIPPED.test(section)) return;
    const op = opName(section);
    if (key.startsWith('Return=')) {
      const n = this.number(i, value) ?? 0;
      const r = this.returns.get(op) ?? { ok: 0, failed: 0, codes: [] };
      if (key === 'Return=OK' || key === 'Return=0') r.ok += n;
      else {
        r.failed += n;
        r.codes.push(`${key.slice(7)} ${n}`);
      }
      this.returns.set(op, r);
      return;
    }
    if (key === 'Operations') {
      const n = this.number(i, value);
      // An operation that never completed reports zeros and Long.MAX_VALUE as latencies: it has none.
      if (n === 0) this.empty.add(op);
      this.b.metric(`${op}.ops`, n, 'count');
      return;
    }
    if (this.empty.has(op)) return;
    // `AverageLatency(us)`, `95thPercentileLatency(us)`, `99.9PercentileLatency(us)`; old releases report ms.
    const paren = key.indexOf('(');
    const unit = key.slice(paren + 1, -1);
    if (paren < 0 || !key.endsWith(')') || (unit !== 'us' && unit !== 'ms')) return;
    const stat = key.slice(0, paren);
    let base = JAVA_LATENCY[stat];
    if (!base && stat.endsWith('PercentileLatency')) {
      const p = stat.slice(0, -'PercentileLatency'.length).replace(/th$/, '');
      if (toNumber(p) !== null) base = `lat_p${p.replace('.', '')}_ms`;
    }
    if (!base) return;
    const v = this.number(i, value);
    if (v === null) return;
    this.b.metric(`${op}.${base}`, unit === 'us' ? v / 1000 : v, 'ms');
  }

  /** `2017-05-20 18:55:44:512 10 sec: 376385 operations; 37634.74 current ops/sec; … [READ: Count=…, Avg=…, 99=…]`. */
  statusLine(i: number, line: string, sec: number): void {
    const elapsed = toNumber(line.slice(line.lastIndexOf(' ', sec - 1) + 1, sec));
    const cur = line.indexOf(' current ops/sec');
    if (elapsed === null || cur < 0) return;
    const values: Record<string, number | null> = {
      ops_per_s: this.number(i, line.slice(line.lastIndexOf(' ', cur - 1) + 1, cur)),
    };
    // Each search starts after the previous group, and a group without `: ` before its `]` ends the
    // line's groups, so a line is scanned a bounded number of times whatever it holds.
    for (let open = line.indexOf('[', cur), groups = 0; open >= 0 && groups < MAX_GROUPS; groups++) {
      const end = line.indexOf(']', open);
      const colon = end < 0 ? -1 : line.lastIndexOf(': ', end);
      if (end < 0 || colon < open) break;
      const op = opName(line.slice(open + 1, colon));
      for (const pair of line.slice(colon + 2, end).split(', ')) {
        const eq = pair.indexOf('=');
        const base = STATUS_LATENCY[pair.slice(0, eq)];
        const us = base ? toNumber(pair.slice(eq + 1)) : null;
        if (base && us !== null) values[`${op}.${base}`] = us / 1000;
      }
      open = line.indexOf('[', end);
    }
    this.b.sample(elapsed, values);
  }

  /** `READ   - Takes(s): 10.0, Count: 9977, OPS: 997.8, Avg(us): 400, …, 99.99th(us): 1800`. */
  goLine(i: number, line: string, dash: number, final: boolean): void {
    const op = line.slice(0, dash).trim();
    const cols: Record<string, number | null> = {};
    for (const pair of line.slice(dash + 3).split(', ')) {
      const colon = pair.indexOf(': ');
      if (colon < 0) this.fail(i, `"${pair.slice(0, 40)}" is not "name: value"`);
      cols[pair.slice(0, colon)] = this.number(i, pair.slice(colon + 2));
    }
    const takes = cols['Takes(s)'];
    if (takes === undefined || takes === null) this.fail(i, 'no "Takes(s)" value');
    const name = op === 'TOTAL' ? '' : `${opName(op)}.`;
    if (!final) {
      this.sawGoInterval = true;
      // Interval lines are cumulative: the rate of an interval is its count's growth over its time.
      const count = cols.Count;
      if (count !== undefined && count !== null && !op.endsWith('_ERROR')) {
        const last = this.goLast.get(op);
        if (last && takes > last.t)
          this.b.sample(Math.round(takes), { [`${name}ops_per_s`]: (count - last.count) / (takes - last.t) });
        this.goLast.set(op, { t: takes, count });
      }
      // Without a final report (a cut or killed run) the last interval line of each operation stands in.
      if (this.sawGoFinal) return;
    }
    if (op.endsWith('_ERROR')) {
      this.goErrors.set(op, { count: cols.Count ?? 0, ops: cols.OPS ?? 0 });
      return;
    }
    if (op === 'TOTAL') {
      this.goTotal = { count: cols.Count ?? 0 };
      this.b.metric('duration_s', takes, 's');
    }
    this.b.metric(`${name}ops_per_s`, cols.OPS ?? null, 'ops/s');
    if (name) this.b.metric(`${name}ops`, cols.Count ?? null, 'count');
    for (const [col, base] of Object.entries(GO_LATENCY))
      if (cols[col] !== undefined && cols[col] !== null)
        this.b.metric(`${name}${base}`, cols[col] / 1000, 'ms');
  }

  read(): TParseResult {
    const b = this.b;
    b.workload = 'ycsb';
    let final = false;
    for (let i = 0; i < this.lines.length; i++) {
      const raw = this.lines[i];
      // Report lines start with `[`, a capital (an operation, OVERALL], Run finished) or a digit (a status
      // line's date); copied reports may be indented. One check skips every other line.
      let c = raw.charCodeAt(0);
      let line = raw;
      if (c === 32 || c === 9) {
        line = raw.trim();
        c = line.charCodeAt(0);
      }
      if (!(c === 91 || (c >= 65 && c <= 90) || (c >= 48 && c <= 57))) continue;
      line = line.trimEnd();
      if (line.startsWith('Run finished, takes ')) {
        final = true;
        this.sawGoFinal = true;
        continue;
      }
      const close = line.indexOf('], ');
      if (close > 0 && close < 80 && /^\[?[A-Z]/.test(line)) {
        this.javaLine(i, line, close);
        continue;
      }
      const dash = line.indexOf(' - Takes(s): ');
      if (dash > 0 && dash < 80) {
        this.goLine(i, line, dash, final);
        continue;
      }
      const sec = line.indexOf(' sec: ');
      if (sec > 0 && /^\d{4}-\d\d-\d\d /.test(line)) this.statusLine(i, line, sec);
    }
    this.summarizeErrors();
    if (!this.sawJava && !this.sawGoFinal && (this.sawGoInterval || b.samples.length > 0))
      b.markIncomplete(
        this.sawGoInterval
          ? 'go-ycsb output ends before "Run finished" (summary from the last interval lines)'
          : 'YCSB output ends before its final [OVERALL] report',
      );
    return b.build('YCSB output without a report ([OVERALL] lines) or go-ycsb result lines');
  }

  private summarizeErrors(): void {
    const b = this.b;
    if (this.sawJava && this.returns.size) {
      let ok = 0;
      let failed = 0;
      const codes: string[] = [];
      for (const [op, r] of this.returns) {
        ok += r.ok;
        failed += r.failed;
        if (r.failed) codes.push(`${op}: ${r.codes.join(', ')}`);
      }
      b.metric('errors', failed, 'count');
      if (ok + failed > 0) b.metric('errors_pct', (failed / (ok + failed)) * 100, '%');
      if (failed > 0 && ok === 0) b.error = `every operation failed (${codes.join('; ')})`;
      else if (failed > 0) b.warnings.push(`failed operations: ${codes.join('; ')}`.slice(0, 300));
    }
    if (this.sawGoFinal || this.sawGoInterval) {
      let count = 0;
      let ops = 0;
      for (const e of this.goErrors.values()) {
        count += e.count;
        ops += e.ops;
      }
      b.metric('errors', count, 'count');
      b.metric('errors_per_s', ops, 'errors/s');
      // TOTAL counts every operation, failed ones included.
      if (this.goTotal.count > 0) b.metric('errors_pct', (count / this.goTotal.count) * 100, '%');
      if (count > 0 && this.goTotal.count > 0 && count >= this.goTotal.count)
        b.error = `every operation failed (${[...this.goErrors.keys()].join(', ')})`;
    }
  }
}

/**
 * YCSB's report: Java YCSB's final `[SECTION], name, value` lines (throughput, run time, per operation its
 * count, latencies in ms and non-OK returns as errors; `-s` status lines become interval samples) or
 * go-ycsb's `OP - Takes(s): …, OPS: …, Avg(us): …` lines (the ones after "Run finished" are the summary,
 * the interval lines before it samples). A report whose every operation failed fails the run.
 */
export function parseYcsb(output: string): TParseResult {
  return new YcsbReader(splitLines(output)).read();
}
