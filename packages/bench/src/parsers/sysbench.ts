import type { TParseResult } from '@clusterscope/schema';
import { ResultBuilder, splitLines, toNumber } from './result-builder';

const NUM = '([\\d.]+)';
const INTERVAL = /^\[\s*([\d.]+)s\s*\]\s(.*)$/;
const PCT_LAT = /(?:lat|latency) \(ms,([\d.]+)%\):\s*([\d.]+)/;

/** `95` -> `lat_p95_ms`, `99.9` -> `lat_p999_ms`, `100` -> `lat_max_ms`. */
export function percentileMetric(pct: string, prefix = 'lat'): string {
  const n = Number(pct);
  if (n === 100) return `${prefix}_max_ms`;
  return `${prefix}_p${pct.replace(/\.0+$/, '').replace('.', '')}_ms`;
}

function match(re: RegExp, text: string, group = 1): number | null {
  const m = re.exec(text);
  return m ? toNumber(m[group]) : null;
}

function parseInterval(b: ResultBuilder, elapsed: number | null, rest: string): void {
  const values: Record<string, number | null> = {
    tps: match(new RegExp(`\\btps: ${NUM}`), rest),
    qps: match(new RegExp(`\\bqps: ${NUM}`), rest),
    events_per_s: match(new RegExp(`\\beps: ${NUM}`), rest),
    errors_per_s: match(new RegExp(`\\berr/s:? ${NUM}`), rest),
    reconnects_per_s: match(new RegExp(`\\breconn/s:? ${NUM}`), rest),
    fsync_per_s: match(new RegExp(`\\bfsyncs: ${NUM}/s`), rest),
  };
  const rwo = /\(r\/w\/o: ([\d.]+)\/([\d.]+)\/([\d.]+)\)/.exec(rest);
  if (rwo) {
    values.read_qps = toNumber(rwo[1]);
    values.write_qps = toNumber(rwo[2]);
    values.other_qps = toNumber(rwo[3]);
  }
  const lat = PCT_LAT.exec(rest);
  if (lat) values[percentileMetric(lat[1])] = toNumber(lat[2]);
  const mib = (re: RegExp) => {
    const v = match(re, rest);
    return v === null ? null : v * 1024;
  };
  values.read_bw_kib_s = mib(new RegExp(`\\breads: ${NUM} MiB/s`));
  values.write_bw_kib_s = mib(new RegExp(`\\bwrites: ${NUM} MiB/s`));
  values.mem_bw_kib_s = mib(new RegExp(`^${NUM} MiB/sec`));
  // An interval in which no event (transaction) finished has no latency (sysbench prints 0.00), even when
  // queries ran in it (reconnects, the statements of unfinished transactions): missing, so a chart shows a gap.
  if ((values.tps ?? values.events_per_s) === 0)
    for (const k of Object.keys(values)) if (k.startsWith('lat_')) values[k] = null;
  b.sample(elapsed, values);
}

const SCRIPT = /^(oltp_\w+|select_random_\w+|bulk_insert|cpu|memory|fileio|threads|mutex)(?:\.lua)?$/;

/** The test named on a `sysbench … <script> run` command line, read word by word (linear in the output). */
function findCommandScript(output: string): string | null {
  for (let at = output.indexOf('sysbench'); at >= 0; at = output.indexOf('sysbench', at + 8)) {
    const next = output[at + 8];
    if (next !== ' ' && next !== '\t') continue;
    const end = output.indexOf('\n', at);
    for (const word of output.slice(at + 9, end < 0 ? undefined : end).split(/\s+/)) {
      const m = SCRIPT.exec(word.slice(word.lastIndexOf('/') + 1));
      if (m) return m[1];
    }
    if (end < 0) break;
    at = end;
  }
  return null;
}

function detectWorkload(output: string, b: ResultBuilder): string {
  const cmd = findCommandScript(output);
  if (cmd) return cmd;
  if (/Prime numbers limit|CPU speed:/.test(output)) return 'cpu';
  if (/memory speed test|MiB transferred/.test(output)) return 'memory';
  if (/File operations:|Extra file open flags/.test(output)) return 'fileio';
  if (/SQL statistics:|\btps: /.test(output)) {
    // No command line: infer the OLTP script from the read/write query mix.
    const read = match(/^[ \t]*read:[ \t]+(\d+)/m, output);
    const write = match(/^[ \t]*write:[ \t]+(\d+)/m, output);
    if (read !== null && write !== null) {
      if (write === 0 && read > 0) return 'oltp_read_only';
      if (read === 0 && write > 0) return 'oltp_write_only';
      return 'oltp_read_write';
    }
    const last = b.samples.at(-1)?.values;
    if (last?.write_qps === 0) return 'oltp_read_only';
    if (last?.read_qps === 0) return 'oltp_write_only';
    return 'oltp';
  }
  return 'sysbench';
}

const KEY = /^[\w ,./()]+$/;
const VALUE = /^\s+([\d.]+)s?\s*(?:\(([\d.]+) per sec(?:ond|\.)\))?$/;

/**
 * `    transactions:   1000  (99.9 per sec.)` → key, value, rate. The key ends at the first colon: split there
 * instead of matching key and padding with one expression, whose overlapping spaces backtrack quadratically.
 */
function splitKeyValue(line: string): [string, string, string | undefined] | null {
  const colon = line.indexOf(':');
  if (colon < 0) return null;
  const key = line.slice(0, colon).trim();
  if (key === '' || !KEY.test(key)) return null;
  const m = VALUE.exec(line.slice(colon + 1));
  return m ? [key, m[1], m[2]] : null;
}

/** sysbench 1.0/1.1: oltp_* (any driver), cpu, memory, fileio; `--report-interval`, `--histogram`. */
export function parseSysbench(output: string): TParseResult {
  const b = new ResultBuilder('sysbench');
  let inHistogram = false;
  let inLatency = false;
  for (const raw of splitLines(output)) {
    const line = raw.trimEnd();
    if (line === '') {
      inHistogram = false;
      continue;
    }
    // Every line read below has a colon, starts with "[" or "Latency histogram", or is a histogram row or a
    // memory rate: one check skips any other line (a flood of short lines stays cheap).
    const c = line.charCodeAt(0);
    if (!inHistogram && c !== 91 /* [ */ && !line.includes(':') && !line.includes('MiB')) {
      if (line.startsWith('Latency histogram')) {
        inHistogram = true;
        b.histogram = [];
      } else if (c !== 32 && c !== 9) inLatency = false;
      continue;
    }
    const interval = INTERVAL.exec(line);
    if (interval) {
      parseInterval(b, toNumber(interval[1]), interval[2]);
      continue;
    }
    if (/^Latency histogram/.test(line)) {
      inHistogram = true;
      b.histogram = [];
      continue;
    }
    if (inHistogram) {
      const bucket = /^\s*([\d.]+) \|[*\s]*?\s(\d+)$/.exec(line);
      const value_ms = toNumber(bucket?.[1]);
      const count = toNumber(bucket?.[2]);
      if (value_ms !== null && count !== null) b.histogram?.push({ value_ms, count });
      else if (!/^\s*value\s+-+/.test(line)) inHistogram = false;
      if (inHistogram) continue;
    }
    if (/^\S/.test(line)) inLatency = /^Latency \(ms\):/.test(line);
    if (/^(FATAL|PANIC|ALERT|WARNING|Error)\b/.test(line)) {
      b.warnings.push(line.slice(0, 300));
      // sysbench stops the whole run at a FATAL or PANIC (a thread's query failed, no connection) and exits
      // non-zero: the run failed, with its first such line as the reason.
      if (c === 70 /* F */ || c === 80 /* P */) b.error ??= line.slice(0, 300);
    }

    const kv = splitKeyValue(line);
    if (kv) {
      const [key, v, rate] = [kv[0], toNumber(kv[1]), toNumber(kv[2])];
      if (inLatency) {
        const pct = /^(\d+(?:\.\d+)?)th percentile$/.exec(key);
        if (pct) b.metric(percentileMetric(pct[1]), v);
        else if (key === 'min' || key === 'avg' || key === 'max') b.metric(`lat_${key}_ms`, v);
        continue;
      }
      const simple: Record<string, string> = {
        'events per second': 'events_per_s',
        'reads/s': 'read_iops',
        'writes/s': 'write_iops',
        'fsyncs/s': 'fsync_per_s',
        'total time': 'duration_s',
      };
      if (key in simple) b.metric(simple[key], v);
      else if (key === 'read, MiB/s' && v !== null) b.metric('read_bw_kib_s', v * 1024);
      else if (key === 'written, MiB/s' && v !== null) b.metric('write_bw_kib_s', v * 1024);
      else if (key === 'transactions') {
        b.metric('transactions', v);
        b.metric('tps', rate);
      } else if (key === 'queries') b.metric('qps', rate);
      else if (key === 'ignored errors') {
        b.metric('errors', v);
        b.metric('errors_per_s', rate);
      } else if (key === 'reconnects') b.metric('reconnects_per_s', rate);
      else if (key === 'Total operations') b.metric('ops_per_s', rate);
      continue;
    }
    const mem = /^[\d.]+ MiB transferred \(([\d.]+) MiB\/sec\)/.exec(line);
    const memRate = toNumber(mem?.[1]);
    if (memRate !== null) b.metric('mem_bw_kib_s', memRate * 1024);
  }
  b.workload = detectWorkload(output, b);
  if (!/^General statistics:/m.test(output))
    b.markIncomplete('sysbench output ends before "General statistics"');
  return b.build('sysbench banner or option text, but no interval lines ("[ 1s ] ...") and no summary');
}
