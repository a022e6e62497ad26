/**
 * Pure helpers of the alerting pages: ordering, labels, URL filters. Dates may be Date or ISO strings. No
 * import of @clusterscope/schema here: the on-call page loads this module and has a 60 KB script budget.
 */
export const SEVERITY_RANK = { critical: 0, warning: 1, info: 2 } as const;
export const STATE_RANK = { firing: 0, pending: 1, resolved: 2, inactive: 3 } as const;
export type TSeverityName = keyof typeof SEVERITY_RANK;
export type TStateName = keyof typeof STATE_RANK;

type TDateish = Date | string | number | null | undefined;
export const ms = (d: TDateish): number | null => (d == null ? null : new Date(d).getTime());

interface TSortable {
  state: string;
  severity: string;
  firedAt?: TDateish;
  activeAt?: TDateish;
  resolvedAt?: TDateish;
}

const rank = <T extends Record<string, number>>(table: T, k: string) => (k in table ? table[k] : 9);

/** Since when an alert has been in its current state (firing: fired, pending: active, resolved: resolved). */
export function since(a: TSortable): number | null {
  if (a.state === 'resolved') return ms(a.resolvedAt) ?? ms(a.firedAt) ?? ms(a.activeAt);
  if (a.state === 'firing') return ms(a.firedAt) ?? ms(a.activeAt);
  return ms(a.activeAt);
}

/** Firing first, then pending, then resolved; within a state the worst severity, then the oldest first. */
export function sortAlerts<T extends TSortable>(alerts: readonly T[]): T[] {
  return [...alerts].sort(
    (a, b) =>
      rank(STATE_RANK, a.state) - rank(STATE_RANK, b.state) ||
      rank(SEVERITY_RANK, a.severity) - rank(SEVERITY_RANK, b.severity) ||
      (a.state === 'resolved'
        ? (since(b) ?? 0) - (since(a) ?? 0) // resolved: newest first
        : (since(a) ?? 0) - (since(b) ?? 0)),
  );
}

export interface TMemberLike {
  user: { id: string; name?: string | null; email?: string | null };
}

/** "user:<id>" → the member's name (or email); "token:<id>" → "an API token"; else the text itself. */
export function actorLabel(actor: string | null | undefined, members: readonly TMemberLike[] = []): string {
  if (!actor) return '';
  const m = /^(user|token):(.+)$/.exec(actor);
  if (!m) return actor;
  if (m[1] === 'token') return 'an API token';
  const u = members.find((x) => x.user.id === m[2])?.user;
  return u?.name || u?.email || 'a former member';
}

/** An alert's subject for humans: "node 2", "host-a / cgroup db", or the instance key. */
export function subject(a: { labels: Record<string, string>; key?: string }): string {
  const l = a.labels;
  if (l.node ?? l.node_id) return `node ${l.node ?? l.node_id}`;
  if (l.host && l.cgroup) return `${l.host} / ${l.cgroup}`;
  if (l.agent ?? l.host) return `${l.agent ?? l.host}`;
  return a.key && a.key !== '' ? a.key : 'cluster';
}

// ---- URL filters of the alerts page ----

export const STATE_FILTERS = ['firing', 'pending', 'resolved'] as const;
export const SEVERITY_FILTERS = ['critical', 'warning', 'info'] as const;

export interface TAlertFilters {
  state: string[];
  severity: string[];
  clusterId: string;
}

const pick = (v: string | null, allowed: readonly string[]) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s, i, all) => allowed.includes(s) && all.indexOf(s) === i);

/** Filters from `?state=firing,pending&severity=critical&cluster=<id>`; unknown values are dropped. */
export function parseFilters(q: URLSearchParams): TAlertFilters {
  const cluster = q.get('cluster') ?? '';
  return {
    state: pick(q.get('state'), STATE_FILTERS),
    severity: pick(q.get('severity'), SEVERITY_FILTERS),
    clusterId: /^[\w-]{1,64}$/.test(cluster) ? cluster : '',
  };
}

/** The query string of a filter set ('' when nothing is filtered). */
export function filterQuery(f: TAlertFilters): string {
  const q = new URLSearchParams();
  if (f.state.length) q.set('state', f.state.join(','));
  if (f.severity.length) q.set('severity', f.severity.join(','));
  if (f.clusterId) q.set('cluster', f.clusterId);
  const s = q.toString();
  return s ? `?${s}` : '';
}

interface TRuleSeries {
  series: string;
  aggregation: string;
  metric?: {
    name: string;
    fn: string;
    matchers?: Record<string, string>;
    quantile?: number;
    per?: string[];
    windowS?: number;
  } | null;
}

/** A rule's series in PromQL-like words: `sum(rate(sql_txn_abort_count{app="x"}[120s]))`, `max(node.down)`. */
export function describeSeries(r: TRuleSeries): string {
  let s = r.series;
  const m = r.metric;
  if (r.series === 'metric' && m) {
    const sel = (name: string) => {
      const ls = Object.entries(m.matchers ?? {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
      return `${name}${ls.length ? `{${ls.join(',')}}` : ''}[${m.windowS ?? 120}s]`;
    };
    s =
      m.fn === 'gauge'
        ? `avg_over_time(${sel(m.name)})`
        : m.fn === 'rate'
          ? `rate(${sel(m.name)})`
          : m.fn === 'quantile'
            ? `histogram_quantile(${m.quantile}, rate(${sel(`${m.name}_bucket`)}))`
            : `100 * rate(${sel(m.name)}) / (${(m.per ?? []).map((p) => `rate(${sel(p)})`).join(' + ')})`;
  }
  return r.aggregation === 'node' ? s : `${r.aggregation}(${s})`;
}

/** Three significant digits at most, no trailing zeros: 94.67335 → "94.7", 0.012345 → "0.0123", 1234.5 → "1235". */
export function round3(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  const abs = Math.abs(v);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : Math.min(6, 2 - Math.floor(Math.log10(abs)));
  return String(Number(v.toFixed(digits)));
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** A series value with its unit for people: "94.7 %", "1.5 GiB", "12 MiB/s", "2.35 cores", "90 s". */
export function formatAlertValue(v: number | null | undefined, unit: string): string {
  if (v == null) return '—';
  if (unit === 'B' || unit === 'B/s') {
    let x = v;
    let i = 0;
    while (Math.abs(x) >= 1024 && i < BYTE_UNITS.length - 1) {
      x /= 1024;
      i++;
    }
    return `${round3(x)} ${BYTE_UNITS[i]}${unit === 'B/s' ? '/s' : ''}`;
  }
  return unit ? `${round3(v)} ${unit}` : round3(v);
}

export const COMPARISON_SIGNS: Record<string, string> = {
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  eq: '=',
  ne: '≠',
};
