/** The rule editor's preview helpers (they need the schema's series table; the on-call page does not). */
import { ALERT_SERIES } from '@clusterscope/schema';

/**
 * A rule preview in one line: "Would fire on 3 of 5 nodes now" (the subjects are the series' nodes, cgroups,
 * agents or inputs, or clusters when the rule aggregates).
 */
export function previewHeadline(
  p: { total: number; firing: number },
  series: string,
  aggregation: string,
): string {
  const subject = (ALERT_SERIES as Record<string, { subject: string }>)[series]?.subject ?? 'node';
  const noun =
    aggregation !== 'node'
      ? 'cluster'
      : series === 'agent.input_failures'
        ? 'input'
        : subject === 'metric'
          ? 'node'
          : subject;
  const of = `${p.total} ${noun}${p.total === 1 ? '' : 's'}`;
  if (p.total === 0) return `No ${noun} has a reading for this series now: the rule would not fire`;
  if (p.firing === 0) return `Would fire on none of ${of} now`;
  return `Would fire on ${p.firing} of ${of} now`;
}
