import type { TPrometheusConfig } from './config';

/**
 * Metric families the cluster page's database panels read (DB Console Overview and SQL dashboards), by their
 * `/_status/vars` names from v19.2 to v24.x (`sql_count` is the v25.3 `/metrics` endpoint's labelled form).
 */
export const DEFAULT_ALLOWLIST = [
  'sql_select_count',
  'sql_insert_count',
  'sql_update_count',
  'sql_delete_count',
  'sql_count',
  'sql_query_count',
  'sql_failure_count',
  'sql_service_latency',
  'sql_txn_latency',
  'sql_txn_begin_count',
  'sql_txn_commit_count',
  'sql_txn_abort_count',
  'sql_txn_rollback_count',
  'txn_commits',
  'txn_aborts',
  'sql_conns',
  'capacity',
  'capacity_available',
  'capacity_used',
  'capacity_reserved',
  'livebytes',
  'sys_cpu_combined_percent_normalized',
  'sys_rss',
  'sys_uptime',
  'replicas',
  'replicas_leaders',
  'replicas_leaseholders',
  'ranges',
  'ranges_unavailable',
  'ranges_underreplicated',
  'liveness_livenodes',
] as const;

export function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** A family-name predicate: (built-in allowlist ∪ include) \ exclude, memoised per name. */
export function compileFilter(
  cfg: Pick<TPrometheusConfig, 'include' | 'exclude' | 'default_allowlist'>,
): (family: string) => boolean {
  const exact = new Set<string>(cfg.default_allowlist ? DEFAULT_ALLOWLIST : []);
  const globs: RegExp[] = [];
  for (const g of cfg.include) {
    if (/[*?]/.test(g)) globs.push(globToRegExp(g));
    else exact.add(g);
  }
  const excludes = cfg.exclude.map(globToRegExp);
  const memo = new Map<string, boolean>();
  return (family) => {
    let v = memo.get(family);
    if (v === undefined) {
      v = (exact.has(family) || globs.some((r) => r.test(family))) && !excludes.some((r) => r.test(family));
      if (memo.size < 50_000) memo.set(family, v);
    }
    return v;
  };
}

/** Series unseen this long stop counting against the cap. */
const SERIES_TTL_MS = 3_600_000;

/** Per-agent series cap: known series pass, new ones pass while below the cap, the rest are refused. */
export class SeriesLimiter {
  private readonly seen = new Map<string, number>();

  constructor(readonly max: number) {}

  get size(): number {
    return this.seen.size;
  }

  admit(instance: string, name: string, labels: Record<string, string>, now: number): boolean {
    let key = instance + '\u0000' + name;
    for (const k of Object.keys(labels).sort()) key += '\u0000' + k + '=' + labels[k];
    if (this.seen.has(key)) {
      this.seen.set(key, now);
      return true;
    }
    if (this.seen.size >= this.max) return false;
    this.seen.set(key, now);
    return true;
  }

  /** Forgets series not seen for an hour (targets removed, pods gone). */
  expire(now: number): void {
    for (const [k, t] of this.seen) if (now - t > SERIES_TTL_MS) this.seen.delete(k);
  }
}
