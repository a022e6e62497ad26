import type { TParseResult } from '@clusterscope/schema';
import { ResultBuilder, splitLines, toNumber } from './result-builder';
import { percentileMetric } from './sysbench';
import { getMetricKind } from '../metrics';

const SUMMARY: Record<string, string> = {
  Slowest: 'lat_max_ms',
  Fastest: 'lat_min_ms',
  Average: 'lat_avg_ms',
};

/** hey (rakyll/hey) default text report. */
export function parseHey(output: string): TParseResult {
  const b = new ResultBuilder('hey');
  b.workload = 'http';
  let section = '';
  let requests = 0;
  let non2xx = 0;
  let errors = 0;
  let total: number | null = null;
  let sawStatus = false;
  for (const raw of splitLines(output)) {
    const line = raw.trimEnd();
    if (line === '') continue;
    if (/^\S.*:$/.test(line)) {
      section = line.slice(0, -1);
      if (section === 'Status code distribution' || section === 'Error distribution') sawStatus = true;
      if (section === 'Response time histogram') b.histogram = [];
      continue;
    }
    let m: RegExpExecArray | null;
    if (section === 'Summary' && (m = /^\s+([\w/][\w/ ]*):\s+([\d.]+)(?: secs)?$/.exec(line))) {
      const [key, v] = [m[1], toNumber(m[2])];
      if (key === 'Total') b.metric('duration_s', (total = v));
      else if (key === 'Requests/sec') b.metric('rps', v);
      else if (key in SUMMARY) b.metric(SUMMARY[key], v === null ? null : v * 1000);
    } else if (section === 'Response time histogram' && (m = /^\s+([\d.]+) \[(\d+)\]/.exec(line))) {
      const value = toNumber(m[1]);
      const count = toNumber(m[2]);
      if (value !== null && count !== null) b.histogram?.push({ value_ms: value * 1000, count });
    } else if (section === 'Latency distribution' && (m = /^\s+([\d.]+)% in ([\d.]+) secs/.exec(line))) {
      const v = toNumber(m[2]);
      b.metric(percentileMetric(String(Number(m[1]))), v === null ? null : v * 1000);
    } else if (section === 'Status code distribution' && (m = /^\s+\[(\d+)\]\s+(\d+) responses/.exec(line))) {
      const n = toNumber(m[2]) ?? 0;
      requests += n;
      if (!/^[23]/.test(m[1])) non2xx += n;
    } else if (section === 'Error distribution' && (m = /^\s+\[(\d+)\]\s+(.*)/.exec(line))) {
      errors += toNumber(m[1]) ?? 0;
      b.warnings.push(`error: ${m[2].slice(0, 300)}`);
    }
  }
  if (sawStatus) {
    b.metric('requests', requests);
    b.metric('non_2xx', non2xx);
    b.metric('errors', errors);
    // Errors as a rate beside the count: a longer run has more of them at the same error rate.
    if (total) b.metric('errors_per_s', errors / total);
    if (requests === 0 && errors > 0) {
      // hey's Requests/sec counts failed requests too: with no response at all, nothing was served.
      b.metric('rps', 0);
      b.error = `no response: ${errors} request error${errors === 1 ? '' : 's'} (${b.warnings[0]?.slice(7) ?? ''})`;
    }
  } else b.markIncomplete('hey output ends before "Status code distribution"');
  const out = b.build('hey text, but no "Summary:" numbers');
  // No response came: the 0.0000 secs slowest/fastest are no latency at all.
  if (sawStatus && requests === 0)
    out.summary = out.summary.filter((x) => getMetricKind(x.name) !== 'latency');
  return out;
}
