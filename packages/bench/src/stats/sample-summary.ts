import type { TIntervalSample, TMetric } from '@clusterscope/schema';
import { directionOf, getMetricInfo } from '../metrics';

/**
 * The summary value of each sampled metric, computed once at ingest for metrics the tool's summary lacks:
 * the mean of its interval samples after the first 10% (warm-up) when ≥ 5 remain, else of all of them.
 */
export function getSampleSummary(samples: readonly TIntervalSample[]): TMetric[] {
  const byName = new Map<string, number[]>();
  for (const s of samples)
    for (const [k, v] of Object.entries(s.values))
      if (Number.isFinite(v)) (byName.get(k) ?? byName.set(k, []).get(k)!).push(v);
  return [...byName].map(([name, xs]) => {
    const cut = xs.slice(Math.floor(xs.length / 10));
    const use = cut.length >= 5 ? cut : xs;
    return {
      name,
      value: use.reduce((a, b) => a + b, 0) / use.length,
      unit: getMetricInfo(name)?.unit ?? '',
      direction: directionOf(name),
    };
  });
}
