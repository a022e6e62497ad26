/**
 * Pure: names the statistic a run list value is, e.g. "p95 ms" for lat_p95_ms and "mean tps" for tps
 * (a throughput is the run's mean rate; a latency is the percentile or average the tool reported).
 */
export function statLabel(metric: string, unit: string): string {
  const lat = /(?:^|_)lat_(p\d+|avg|min|max|stddev)_ms$/.exec(metric);
  if (lat) {
    const s = lat[1] === 'avg' ? 'mean' : lat[1] === 'p999' ? 'p99.9' : lat[1];
    const op = metric.startsWith('read_') ? 'read ' : metric.startsWith('write_') ? 'write ' : '';
    return `${op}${s} ms`;
  }
  const rate = metric.endsWith('_iops')
    ? `${metric.slice(0, -5).replace(/_/g, ' ')} IOPS`
    : metric.endsWith('_per_s')
      ? `${metric.slice(0, -6).replace(/_/g, ' ')}/s`
      : metric;
  return /(^|_)(tps|qps|rps|iops|per_s)$|^tpmC$/.test(metric)
    ? `mean ${rate}`
    : `${rate}${unit ? ` ${unit}` : ''}`;
}
