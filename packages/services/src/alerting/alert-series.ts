/**
 * The series of one alert around its active window (the alert page's chart): the rule's series for the
 * alert's subject, read from the node and cgroup history; other series (liveness flags, staleness, agent
 * and metric rules) from the values the evaluator stored at each state change.
 */
import { getCgroupSeries, getNodeSeries, type TCgroupCols, type TNodeCols } from '@clusterscope/tsdb';
import type { TAlertSeriesView } from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import type { TCaller } from '../tenancy/caller';
import { getAlertDetail } from './api';

const MIN = 60_000;
/** Context before the alert became active, and after it resolved. */
const BEFORE_MS = 30 * MIN;
const AFTER_MS = 15 * MIN;
/** Longest window drawn: a long-firing alert shows its last day. */
const MAX_SPAN_MS = 24 * 60 * MIN;

const pct = (a: number, b: number) =>
  Number.isFinite(a) && Number.isFinite(b) && b > 0 ? (a / b) * 100 : NaN;

/** Node series the node_status history carries, as the rule computes them. */
const NODE_VALUES: Record<string, (b: TNodeCols, i: number) => number> = {
  'node.replicas': (b, i) => b.replicas?.[i] ?? NaN,
  'node.replicas_leaseholders': (b, i) => b.replicas_leaseholders?.[i] ?? NaN,
  'node.ranges': (b, i) => b.ranges?.[i] ?? NaN,
  'node.ranges_unavailable': (b, i) => b.ranges_unavailable?.[i] ?? NaN,
  'node.ranges_underreplicated': (b, i) => b.ranges_underreplicated?.[i] ?? NaN,
  'node.live_bytes': (b, i) => b.live_bytes?.[i] ?? NaN,
  'node.uptime_s': (b, i) => b.uptime_s?.[i] ?? NaN,
  'node.capacity_pct': (b, i) =>
    pct((b.capacity?.[i] ?? NaN) - (b.capacity_available?.[i] ?? NaN), b.capacity?.[i] ?? NaN),
};
const NODE_METRICS = {
  'node.replicas': ['replicas'],
  'node.replicas_leaseholders': ['replicas_leaseholders'],
  'node.ranges': ['ranges'],
  'node.ranges_unavailable': ['ranges_unavailable'],
  'node.ranges_underreplicated': ['ranges_underreplicated'],
  'node.live_bytes': ['live_bytes'],
  'node.uptime_s': ['uptime_s'],
  'node.capacity_pct': ['capacity', 'capacity_available'],
} as const;

const CGROUP_VALUES: Record<string, (b: TCgroupCols, i: number) => number> = {
  'cgroup.cpu_cores': (b, i) => b.cpu_cores[i],
  'cgroup.cpu_pct_of_limit': (b, i) => pct(b.cpu_cores[i], b.cpu_limit_cores[i]),
  'cgroup.throttled_pct': (b, i) => b.throttled_ratio[i] * 100,
  'cgroup.mem_bytes': (b, i) => b.mem_current[i],
  'cgroup.mem_pct': (b, i) => pct(b.mem_current[i], b.mem_max[i]),
  'cgroup.io_read_bps': (b, i) => b.io_read_bps[i],
  'cgroup.io_write_bps': (b, i) => b.io_write_bps[i],
};

const round = (v: number) => (v === 0 ? 0 : Number(v.toPrecision(6)));

/** The alert's series, threshold and active windows over [from, to]. */
export async function getAlertSeries(
  deps: TDeps,
  caller: TCaller,
  id: string,
  now: number = Date.now(),
): Promise<TAlertSeriesView> {
  const a = await getAlertDetail(deps, caller, id);
  const ms = (d: Date | string | null) => (d == null ? null : new Date(d).getTime());
  const start = ms(a.activeAt) ?? ms(a.firedAt) ?? now;
  const end = ms(a.resolvedAt);
  const to = Math.min(now, (end ?? now) + AFTER_MS);
  const from = Math.max(start - BEFORE_MS, to - MAX_SPAN_MS);
  const series = a.rule?.series ?? '';
  const node = a.labels.node && /^\d+$/.test(a.labels.node) ? Number(a.labels.node) : undefined;
  const perSubject = a.rule?.aggregation === 'node';
  let data: [number, number | null][] | null = null;
  if (perSubject && node !== undefined && series in NODE_METRICS) {
    const r = await getNodeSeries(deps.ch, {
      orgId: caller.orgId,
      clusterId: a.clusterId,
      nodeId: node,
      from,
      to: to + 1,
      metrics: NODE_METRICS[series as keyof typeof NODE_METRICS],
    });
    const b = r.nodes[0];
    data = b ? b.t.map((t, i) => [t, valueOrNull(NODE_VALUES[series](b, i))]) : [];
  } else if (perSubject && a.labels.host && a.labels.cgroup && series in CGROUP_VALUES) {
    const blocks = await getCgroupSeries(deps.ch, {
      orgId: caller.orgId,
      clusterId: a.clusterId,
      host: a.labels.host,
      cgroup: a.labels.cgroup,
      from,
      to: to + 1,
    });
    const b = blocks[0];
    data = b ? b.t.map((t, i) => [t, valueOrNull(CGROUP_VALUES[series](b, i))]) : [];
  }
  const source = data ? 'history' : 'evaluations';
  if (!data)
    data = a.history
      .filter((e) => e.kind === 'state' && e.value !== null)
      .map((e): [number, number | null] => [new Date(e.at).getTime(), e.value])
      .sort((x, y) => x[0] - y[0]);
  return {
    from,
    to,
    source,
    unit: a.rule?.unit ?? '',
    threshold: a.rule?.threshold ?? null,
    data: data.map(([t, v]) => [t, v === null ? null : round(v)]),
    windows: [{ from: start, to: end, firedAt: ms(a.firedAt) }],
  };
}

const valueOrNull = (v: number) => (Number.isFinite(v) ? v : null);
