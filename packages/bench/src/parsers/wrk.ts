import type { TParseResult } from '@clusterscope/schema';
import { ResultBuilder, splitLines, toMs, toNumber } from './result-builder';
import { percentileMetric } from './sysbench';
import { getMetricKind } from '../metrics';

const SIZE_TO_KIB: Record<string, number> = { B: 1 / 1024, KB: 1, MB: 1024, GB: 1024 ** 2, TB: 1024 ** 3 };

/** wrk 4.x (and wrk2) text output, with or without `--latency`. */
export function parseWrk(output: string): TParseResult {
  const b = new ResultBuilder('wrk');
  b.workload = 'http';
  let inDistribution = false;
  let errors: number | null = null;
  let requests: number | null = null;
  let durationS: number | null = null;
  for (const raw of splitLines(output)) {
    const line = raw.trimEnd();
    if (line === '') {
      inDistribution = false;
      continue;
    }
    const c = line.charCodeAt(0);
    // Every line read below starts with a blank, "Requests/sec:" or "Transfer/sec:".
    if (c !== 32 && c !== 9 && c !== 82 /* R */ && c !== 84 /* T */) {
      inDistribution = false;
      continue;
    }
    let m: RegExpExecArray | null;
    if (/^\s+Latency Distribution/.test(line)) {
      inDistribution = true;
      continue;
    }
    if (inDistribution && (m = /^\s+([\d.]+)%\s+([\d.]+(?:us|ms|s|m|h))$/.exec(line))) {
      b.metric(percentileMetric(String(Number(m[1]))), toMs(m[2]));
      continue;
    }
    inDistribution = false;
    if ((m = /^\s+Latency\s+([\d.]+[a-z]+)\s+([\d.]+[a-z]+)\s+([\d.]+[a-z]+)/.exec(line))) {
      b.metric('lat_avg_ms', toMs(m[1]));
      b.metric('lat_stddev_ms', toMs(m[2]));
      b.metric('lat_max_ms', toMs(m[3]));
    } else if ((m = /^\s+(\d+) requests in ([\d.]+[a-z]+),/.exec(line))) {
      requests = toNumber(m[1]);
      b.metric('requests', requests);
      const ms = toMs(m[2]);
      durationS = ms === null ? null : ms / 1000;
      b.metric('duration_s', durationS);
    } else if ((m = /^\s+Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(line))) {
      errors = m.slice(1, 5).reduce((s, x) => s + (toNumber(x) ?? 0), 0);
    } else if ((m = /^\s+Non-2xx or 3xx responses: (\d+)/.exec(line))) b.metric('non_2xx', toNumber(m[1]));
    else if ((m = /^Requests\/sec:\s+([\d.]+)/.exec(line))) b.metric('rps', toNumber(m[1]));
    else if ((m = /^Transfer\/sec:\s+([\d.]+)(B|KB|MB|GB|TB)/.exec(line))) {
      const v = toNumber(m[1]);
      b.metric('transfer_kib_s', v === null ? null : v * SIZE_TO_KIB[m[2]]);
    }
  }
  if (b.hasMetric('rps')) {
    b.metric('errors', errors ?? 0);
    // Socket errors as a rate beside the count: a longer run has more of them at the same error rate.
    if (durationS) b.metric('errors_per_s', (errors ?? 0) / durationS);
  } else b.markIncomplete('wrk output ends before "Requests/sec:"');
  if (requests === 0 && errors)
    b.error = `no request completed: ${errors} socket error${errors === 1 ? '' : 's'}`;
  const result = b.build('wrk banner, but no latency or request lines');
  // No request completed: wrk prints 0.00us latencies (and -nan%), which are no latency at all.
  if (requests === 0) result.summary = result.summary.filter((x) => getMetricKind(x.name) !== 'latency');
  return result;
}
