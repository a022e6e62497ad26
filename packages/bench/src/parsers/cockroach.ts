import type { TParseResult } from '@clusterscope/schema';
import { ResultBuilder, splitLines, toNumber } from './result-builder';

type THeader = { columns: string[]; kind: 'interval' | 'total' | 'result' | 'tpmc' };
type TRow = { elapsed: number; op: string; values: Record<string, number | null> };

const COLUMN_METRIC: Record<string, string> = {
  errors: 'errors',
  'ops/sec(inst)': 'ops_per_s',
  'ops/sec(cum)': 'ops_per_s_cum',
  'ops(total)': 'ops',
  'avg(ms)': 'lat_avg_ms',
  'p50(ms)': 'lat_p50_ms',
  'p90(ms)': 'lat_p90_ms',
  'p95(ms)': 'lat_p95_ms',
  'p99(ms)': 'lat_p99_ms',
  'pMax(ms)': 'lat_max_ms',
  tpmC: 'tpmC',
  efc: 'efc_pct',
};
const YCSB_OPS = new Set(['read', 'update', 'insert', 'scan', 'readModifyWrite']);
const TPCC_OPS = new Set(['newOrder', 'payment', 'orderStatus', 'delivery', 'stockLevel']);
/** Operation names only one `cockroach workload` generator prints (pkg/workload/<name>). */
const OPS_OF: [string, RegExp][] = [
  [
    'movr',
    /^(addUser|addVehicle|applyPromoCode|createPromoCode|endRide|readVehicles|startRide|updateActiveRides)$/,
  ],
  ['roachmart', /^(local|remote)$/],
  ['sqlsmith', /^generate$/],
];
/** CockroachDB log lines: `E230101 12:00:00.000000 …` (error) and `F…` (fatal). */
const LOG_ERROR = /^[EF]\d{6} \d{2}:\d{2}:\d{2}\.\d+ /;
const ERROR_LINE = /^(Error|ERROR|error)\b[:\s]/;

function parseHeader(line: string): THeader | null {
  if (!line.startsWith('_elapsed')) return null;
  const names = line.split(/_+/).filter(Boolean);
  const last = names.at(-1);
  const kind =
    last === 'total' ? 'total' : last === 'result' ? 'result' : names.includes('tpmC') ? 'tpmc' : 'interval';
  if (kind === 'total' || kind === 'result') names.pop();
  return { columns: names.slice(1), kind };
}

function parseRow(line: string, header: THeader): TRow | null {
  const m = /^\s*([\d.]+)s\s+(.*)/.exec(line);
  const elapsed = toNumber(m?.[1]);
  if (!m || elapsed === null) return null;
  const tokens = m[2].trim().split(/\s+/);
  if (tokens.length < header.columns.length) return null;
  const values: Record<string, number | null> = {};
  header.columns.forEach((col, i) => {
    const metric = COLUMN_METRIC[col];
    if (metric) values[metric] = toNumber(tokens[i].replace(/%$/, ''));
  });
  return { elapsed, op: tokens.slice(header.columns.length).join(' '), values };
}

/** errors (a count) and, beside it, errors per second over the run and the share of operations that failed. */
function addErrorRate(b: ResultBuilder, errors: number | null, ops: number | null, elapsed: number): void {
  if (errors === null) return;
  b.metric('errors', errors);
  if (elapsed > 0) b.metric('errors_per_s', errors / elapsed);
  if (ops !== null && ops + errors > 0) b.metric('errors_pct', (100 * errors) / (ops + errors));
}

/**
 * A run without a totals block (it ended in an error, or the output was cut): the summary comes from the last
 * cumulative columns the tool printed per operation (ops/sec(cum), the cumulative errors). Interval percentiles
 * are per second, not cumulative, so none is made up here. The caller marks the result incomplete (partial).
 */
function addPartialSummary(b: ResultBuilder, intervals: TRow[], multi: boolean): void {
  const last = new Map<string, TRow>();
  for (const row of intervals) last.set(row.op, row);
  let rate = 0;
  let errors = 0;
  let ops = 0;
  let elapsed = 0;
  for (const [op, row] of last) {
    const cum = row.values.ops_per_s_cum;
    const n = cum === null ? null : Math.round(cum * row.elapsed);
    if (multi) {
      b.metric(`${op}.ops_per_s`, cum);
      b.metric(`${op}.ops`, n);
    }
    rate += cum ?? 0;
    ops += n ?? 0;
    errors += row.values.errors ?? 0;
    elapsed = Math.max(elapsed, row.elapsed);
  }
  b.metric('ops_per_s', rate);
  b.metric('ops', ops);
  b.metric('duration_s', elapsed);
  addErrorRate(b, errors, ops, elapsed);
  b.warnings.push(
    `partial: no totals block; the summary is the last cumulative columns printed (at ${elapsed} s): ops/sec(cum) and errors`,
  );
}

/** The generator's name: from a `workload run <name>` line (roachtest logs), else from its operation names. */
export function detectWorkload(output: string, ops: Set<string>): string {
  const cmd = /workload[ _]run[ _]([a-z][a-z0-9_]*)/.exec(output);
  if (cmd) return cmd[1];
  if (/_tpmC_/.test(output) || [...ops].some((op) => TPCC_OPS.has(op))) return 'tpcc';
  if (ops.has('transfer')) return 'bank';
  for (const [name, re] of OPS_OF) if ([...ops].some((op) => re.test(op))) return name;
  if (ops.has('write')) return 'kv';
  if ([...ops].some((op) => YCSB_OPS.has(op))) return 'ycsb';
  return 'cockroach-workload';
}

/** `cockroach workload run` (bank, kv, ycsb, tpcc, ...): per-second lines, per-op totals, result, tpmC. */
export function parseCockroachWorkload(output: string): TParseResult {
  const b = new ResultBuilder('cockroach-workload');
  const intervals: TRow[] = [];
  const totals: TRow[] = [];
  let result: TRow | null = null;
  let tpmc: TRow | null = null;
  let header: THeader | null = null;
  let auditSeen = false;
  let auditFailures = 0;
  /** The last `Error: …` line and whether a tick row came after it. */
  let lastError: string | null = null;
  let logErrors = 0;
  for (const raw of splitLines(output)) {
    const line = raw.trimEnd();
    if (line === '') continue;
    if (LOG_ERROR.test(line)) {
      // --tolerate-errors prints the errors it tolerated as log lines: keep the first few as warnings.
      if (++logErrors <= 5) b.warnings.push(line.slice(0, 300));
      continue;
    }
    const h = parseHeader(line);
    if (h) {
      header = h;
      continue;
    }
    const audit = /^Audit check ([\d.]+): (PASS|SKIP|FAIL)\b(.*)$/.exec(line);
    if (audit) {
      auditSeen = true;
      if (audit[2] === 'FAIL') {
        auditFailures++;
        b.warnings.push(line.slice(0, 300));
      }
      continue;
    }
    if (ERROR_LINE.test(line)) {
      lastError = line.slice(0, 1000);
      b.warnings.push(line.slice(0, 300));
      continue;
    }
    if (!header) continue;
    const row = parseRow(line, header);
    if (!row) continue;
    lastError = null;
    if (header.kind === 'interval') intervals.push(row);
    else if (header.kind === 'total') totals.push(row);
    else if (header.kind === 'result') result = row;
    else tpmc = row;
  }

  const ops = new Set([...intervals, ...totals].map((r) => r.op).filter(Boolean));
  const multi = ops.size > 1;
  /** The errors column is cumulative: per interval, the errors since the previous tick of that operation. */
  const prev = new Map<string, { elapsed: number; errors: number }>();
  for (const row of intervals) {
    const { ops_per_s, errors } = row.values;
    const before = prev.get(row.op) ?? { elapsed: 0, errors: 0 };
    const dt = row.elapsed - before.elapsed;
    const errors_per_s = errors === null || dt <= 0 ? null : Math.max(0, errors - before.errors) / dt;
    if (errors !== null) prev.set(row.op, { elapsed: row.elapsed, errors });
    // A second with no operations has no latency (the tool prints 0.0): missing, so a chart shows a gap.
    const idle = ops_per_s === 0;
    const lat = (k: 'lat_p50_ms' | 'lat_p95_ms' | 'lat_p99_ms' | 'lat_max_ms') =>
      idle ? null : row.values[k];
    const v = {
      ops_per_s,
      errors_per_s,
      lat_p50_ms: lat('lat_p50_ms'),
      lat_p95_ms: lat('lat_p95_ms'),
      lat_p99_ms: lat('lat_p99_ms'),
      lat_max_ms: lat('lat_max_ms'),
    };
    if (!multi) {
      b.sample(row.elapsed, v);
      continue;
    }
    const prefixed = Object.fromEntries(Object.entries(v).map(([k, x]) => [`${row.op}.${k}`, x]));
    const last = b.samples.at(-1);
    const sameTick = last?.elapsed_s === row.elapsed;
    const prevOps = sameTick ? (last.values.ops_per_s ?? 0) : 0;
    const prevErr = sameTick ? (last.values.errors_per_s ?? 0) : 0;
    b.sample(row.elapsed, {
      ...prefixed,
      ops_per_s: ops_per_s === null ? null : prevOps + ops_per_s,
      errors_per_s: errors_per_s === null ? null : prevErr + errors_per_s,
    });
  }

  const addTotals = (row: TRow, prefix: string) => {
    for (const [k, v] of Object.entries(row.values)) {
      b.metric(prefix + (k === 'ops_per_s_cum' ? 'ops_per_s' : k), v);
    }
  };
  if (multi) for (const row of totals) addTotals(row, `${row.op}.`);
  if (result) addTotals(result, '');
  else if (totals.length === 1) addTotals(totals[0], '');
  else if (totals.length === 0 && !tpmc && intervals.length > 0) addPartialSummary(b, intervals, multi);
  const final = result ?? (totals.length === 1 ? totals[0] : null);
  if (final) addErrorRate(b, final.values.errors, final.values.ops, final.elapsed);
  if (tpmc) {
    b.metric('tpmC', tpmc.values.tpmC);
    b.metric('efc_pct', tpmc.values.efc_pct);
    // The tpmC line's latencies are those of newOrder transactions.
    for (const [k, v] of Object.entries(tpmc.values)) {
      if (k.startsWith('lat_') && !b.hasMetric(`newOrder.${k}`)) b.metric(`newOrder.${k}`, v);
    }
  }
  if (auditSeen) b.metric('audit_failures', auditFailures);
  if (logErrors > 5) b.warnings.push(`${logErrors} error log lines in the output (first 5 shown)`);
  const errorsTotal = (result ?? (totals.length === 1 ? totals[0] : null))?.values.errors ?? null;
  const errorsSeen = errorsTotal ?? intervals.reduce((m, r) => Math.max(m, r.values.errors ?? 0), 0);
  if (errorsSeen && errorsSeen > 0)
    b.warnings.push(`the workload reported ${errorsSeen} error(s) (errors column)`);
  if (lastError) b.error = lastError;
  if (auditFailures > 0) b.warnings.push(`${auditFailures} TPC-C audit check(s) failed`);

  b.workload = detectWorkload(output, ops);
  if (!result && !tpmc) b.markIncomplete('cockroach workload output ends before the "__result" line');
  else if (b.workload === 'tpcc' && !tpmc) b.markIncomplete('tpcc output ends before the tpmC line');
  return b.build('cockroach workload text, but no per-second, total or tpmC rows');
}
