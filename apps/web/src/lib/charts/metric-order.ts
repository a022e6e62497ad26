/**
 * Which history charts a workload shows first: key metrics (throughput, then the main latency
 * percentiles, then errors) before the rest; a multi-metric workload shows `DEFAULT_SHOWN` at first and
 * offers the rest in a picker (the choice is kept in the URL as `?metrics=a,b`).
 */
const KEY = [
  /^(tps|qps|ops_per_s|rps|events_per_s|tpmC)$/,
  /(^|\.)ops_per_s$|_iops$|_qps$|bw_kib_s$/,
  /(^|\.)lat_p(95|99)_ms$/,
  /(^|\.)lat_(avg|p50)_ms$/,
  /err|fail/,
];
export const DEFAULT_SHOWN = 6;

/** Rank of a metric name: lower is more important; names matching no key pattern come last. */
export function rankMetric(name: string): number {
  const i = KEY.findIndex((re) => re.test(name));
  return i === -1 ? KEY.length : i;
}

/** Names ordered key metrics first (stable within a rank, then by name). */
export function orderMetrics(names: readonly string[]): string[] {
  return [...names].sort((a, b) => rankMetric(a) - rankMetric(b) || a.localeCompare(b));
}

/** The metrics to draw: the URL's choice (known names only), else the first DEFAULT_SHOWN in order. */
export function pickShown(names: readonly string[], param: string | null): string[] {
  const ordered = orderMetrics(names);
  if (param !== null) {
    const want = new Set(param.split(',').filter(Boolean));
    const chosen = ordered.filter((n) => want.has(n));
    if (chosen.length || param === '') return chosen;
  }
  return ordered.slice(0, DEFAULT_SHOWN);
}
