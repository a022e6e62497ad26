/** Turns the latest node, cgroup and agent readings into per-subject series values (pure). */
import type { TAlertCgroup, TAlertNode } from '@clusterscope/tsdb';
import {
  ALERT_SERIES,
  staleAfterMs,
  type TAggregation,
  type TAlertSeries,
  type TInputState,
} from '@clusterscope/schema';

/** One subject's reading: `stale` = its data is older than 3 agent intervals. */
export interface TSample {
  key: string;
  labels: Record<string, string>;
  value: number | null;
  stale: boolean;
  /** Extra template variables (not labels: they may change while the alert fires). */
  vars?: Record<string, string>;
}

export interface TClusterReadings {
  nodes: TAlertNode[];
  cgroups: TAlertCgroup[];
  agents: {
    id: string;
    name: string;
    evictionsDelta: number | null;
    /** Epoch ms of its latest heartbeat (null: never). */
    seenAt?: number | null;
    /** Its inputs' collection states from that heartbeat. */
    inputs?: readonly TInputState[];
  }[];
  intervalS: number;
}

const DOWN = new Set(['DEAD', 'UNAVAILABLE']);
const DRAINING = new Set(['DRAINING', 'DECOMMISSIONING']);
const pct = (a: number | null, b: number | null) =>
  a === null || b === null || b <= 0 ? null : (a / b) * 100;

function nodeValue(series: TAlertSeries, n: TAlertNode, ageS: number, staleAfterS: number): number | null {
  switch (series) {
    case 'node.down':
      return DOWN.has(n.liveness) ? 1 : 0;
    case 'node.draining':
      return DRAINING.has(n.liveness) ? 1 : 0;
    case 'node.stale':
      return ageS >= staleAfterS ? 1 : 0;
    case 'node.age_s':
      return ageS;
    case 'node.ranges_unavailable':
      return n.ranges_unavailable;
    case 'node.ranges_underreplicated':
      return n.ranges_underreplicated;
    case 'node.capacity_pct':
      return n.capacity > 0 ? pct(n.capacity - n.capacity_available, n.capacity) : null;
    case 'node.replicas':
      return n.replicas;
    case 'node.replicas_leaseholders':
      return n.replicas_leaseholders;
    case 'node.ranges':
      return n.ranges;
    case 'node.live_bytes':
      return n.live_bytes;
    case 'node.uptime_s':
      return n.uptime_s;
    default:
      return null;
  }
}

function cgroupValue(series: TAlertSeries, c: TAlertCgroup): number | null {
  switch (series) {
    case 'cgroup.cpu_cores':
      return c.cpu_cores;
    case 'cgroup.cpu_pct_of_limit':
      return pct(c.cpu_cores, c.cpu_limit_cores);
    case 'cgroup.throttled_pct':
      return c.throttled_ratio === null ? null : c.throttled_ratio * 100;
    case 'cgroup.mem_bytes':
      return c.mem_current;
    case 'cgroup.mem_pct':
      return pct(c.mem_current, c.mem_max);
    case 'cgroup.io_read_bps':
      return c.io_read_bps;
    case 'cgroup.io_write_bps':
      return c.io_write_bps;
    default:
      return null;
  }
}

/**
 * The samples of one series in one cluster, one per subject. `upSince`: when this server started. Data
 * counts as stale only for as long as the server has been up to receive newer data: after a restart the
 * agents' next batches are still on their way, which is not an agent going silent.
 */
export function samplesOf(
  series: TAlertSeries,
  r: TClusterReadings,
  now: number,
  upSince?: number,
): TSample[] {
  const staleAfterS = staleAfterMs(r.intervalS) / 1000;
  const upS = upSince === undefined ? Infinity : Math.max(0, (now - upSince) / 1000);
  /** How long a subject has been silent as far as this server can tell. */
  const silentS = (ts: number) => Math.min(Math.max(0, (now - ts) / 1000), upS);
  const subject = ALERT_SERIES[series].subject;
  if (subject === 'metric') return []; // metric rules: metricSamples over their own rows
  if (subject === 'node')
    return r.nodes
      .filter((n) => n.liveness !== 'DECOMMISSIONED')
      .map((n) => {
        const ageS = Math.max(0, (now - n.ts) / 1000);
        const silent = silentS(n.ts) >= staleAfterS;
        return {
          key: `node=${n.node_id}`,
          labels: { node: String(n.node_id) },
          vars: { liveness: n.liveness },
          value: series === 'node.stale' ? (silent ? 1 : 0) : nodeValue(series, n, ageS, staleAfterS),
          // The staleness series itself is never stale.
          stale: series !== 'node.stale' && series !== 'node.age_s' && silent,
        };
      });
  if (subject === 'cgroup')
    return r.cgroups.map((c) => ({
      key: `host=${c.host},cgroup=${c.cgroup}`,
      labels: {
        host: c.host,
        cgroup: c.cgroup,
        ...(c.node_id !== null ? { node: String(c.node_id) } : {}),
      },
      value: cgroupValue(series, c),
      stale: silentS(c.ts) >= staleAfterS,
    }));
  if (series === 'agent.input_failures')
    // One subject per input; an agent that stopped sending heartbeats says nothing current about them.
    return r.agents.flatMap((a) =>
      (a.inputs ?? []).map((i) => ({
        key: `agent=${a.name},input=${i.input}`,
        labels: { agent: a.name, input: i.input },
        vars: { error: i.error ?? '' },
        value: i.state === 'failing' ? i.failures : 0,
        stale: a.seenAt == null || (now - a.seenAt) / 1000 >= staleAfterS,
      })),
    );
  return r.agents.map((a) => ({
    key: `agent=${a.name}`,
    labels: { agent: a.name },
    value: a.evictionsDelta,
    stale: false,
  }));
}

/** Folds a cluster's samples into one (non-stale samples only, unless every sample is stale). */
export function aggregate(samples: TSample[], agg: Exclude<TAggregation, 'node'>): TSample | null {
  const fresh = samples.filter((s) => !s.stale && s.value !== null);
  const use = fresh.length ? fresh : samples.filter((s) => s.value !== null);
  if (use.length === 0) return null;
  const xs = use.map((s) => s.value as number);
  const value =
    agg === 'sum'
      ? xs.reduce((a, b) => a + b, 0)
      : agg === 'max'
        ? Math.max(...xs)
        : agg === 'min'
          ? Math.min(...xs)
          : agg === 'avg'
            ? xs.reduce((a, b) => a + b, 0) / xs.length
            : xs.filter((x) => x !== 0).length;
  return { key: '', labels: {}, value, stale: fresh.length === 0 };
}

/** Fills {{label}}, {{value}}, {{threshold}} and {{cluster}} in a summary template. */
export function renderSummary(tpl: string, vars: Record<string, string>): string {
  return tpl.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, k: string) => vars[k] ?? '');
}

export const formatValue = (v: number | null) =>
  v === null ? '' : Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) >= 10 ? 1 : 2);
