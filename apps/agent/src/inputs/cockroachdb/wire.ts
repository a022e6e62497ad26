import { LIVENESS, type TLiveness, type TNodeStatusSample } from '@clusterscope/schema';

/** Store metrics summed per node (dotted CockroachDB keys). */
const STORE_KEYS = [
  'replicas',
  'replicas.leaders',
  'replicas.leaseholders',
  'ranges.unavailable',
  'ranges.underreplicated',
  'livebytes',
  'keybytes',
  'valbytes',
  'intentbytes',
  'sysbytes',
  'capacity',
  'capacity.available',
  'capacity.used',
] as const;

type Json = unknown;
type Obj = Record<string, Json>;

const isObj = (v: Json): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** snake_case → camelCase keys, recursively; metric maps keep their keys. */
export function camelizeKeys(v: Json, keepKeys = false): Json {
  if (Array.isArray(v)) return v.map((x) => camelizeKeys(x));
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, val] of Object.entries(v)) {
    const key = keepKeys ? k : k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    out[key] = camelizeKeys(val, key === 'metrics' || key === 'livenessByNodeId' || key === 'statuses');
  }
  return out;
}

/** int64 on the wire is a JSON string; doubles are numbers. Non-numeric → 0. */
export function toNumber(v: Json): number {
  if (typeof v === 'number') return Number.isFinite(v) ? v : 0;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : 0;
  }
  return 0;
}

/** Unix nanoseconds (string or number) → epoch ms; null when absent/zero. */
export function nanosToMs(v: Json): number | null {
  if (isObj(v) && 'wallTime' in v) return nanosToMs(v.wallTime);
  if (typeof v === 'string' && /^\d+$/.test(v)) {
    const ms = Number(BigInt(v) / 1_000_000n);
    return ms > 0 ? ms : null;
  }
  if (typeof v === 'number' && v > 0) return Math.floor(v / 1e6);
  return null;
}

/** Liveness enum as int, "LIVE" or "NODE_STATUS_LIVE" → TLiveness. */
export function toLiveness(v: Json): TLiveness {
  if (typeof v === 'number') return LIVENESS[v] ?? 'UNKNOWN';
  if (typeof v === 'string') {
    if (/^\d+$/.test(v)) return LIVENESS[Number(v)] ?? 'UNKNOWN';
    const name = v.toUpperCase().replace(/^NODE_STATUS_/, '');
    return (LIVENESS as readonly string[]).includes(name) ? (name as TLiveness) : 'UNKNOWN';
  }
  return 'UNKNOWN';
}

const MEMBERSHIP = ['active', 'decommissioning', 'decommissioned'];
function toMembership(v: Json): string {
  if (typeof v === 'number') return MEMBERSHIP[v] ?? 'active';
  if (typeof v === 'string' && v) return v.toLowerCase();
  return 'active';
}

function str(v: Json): string {
  return typeof v === 'string' ? v : '';
}

function localityString(loc: Json): string {
  if (!isObj(loc) || !Array.isArray(loc.tiers)) return '';
  return loc.tiers
    .filter(isObj)
    .map((t) => `${str(t.key)}=${str(t.value)}`)
    .join(',');
}

interface LivenessRecord {
  expirationMs: number | null;
  draining: boolean;
  membership: string;
}

/** Index `/_admin/v1/liveness` by node id (accepts camel/snake case). */
export function indexLiveness(body: Json): {
  records: Map<number, LivenessRecord>;
  statuses: Map<number, TLiveness>;
} {
  const records = new Map<number, LivenessRecord>();
  const statuses = new Map<number, TLiveness>();
  const b = camelizeKeys(body);
  if (!isObj(b)) return { records, statuses };
  if (Array.isArray(b.livenesses)) {
    for (const l of b.livenesses.filter(isObj)) {
      const id = toNumber(l.nodeId);
      if (id > 0)
        records.set(id, {
          expirationMs: nanosToMs(l.expiration),
          draining: l.draining === true,
          membership: toMembership(l.membership),
        });
    }
  }
  if (isObj(b.statuses))
    for (const [id, s] of Object.entries(b.statuses)) statuses.set(Number(id), toLiveness(s));
  return { records, statuses };
}

/** Liveness states in which the node is still gossiping (the CLI's is_live). */
const GOSSIPING: ReadonlySet<TLiveness> = new Set(['LIVE', 'DRAINING', 'DECOMMISSIONING', 'STARTING']);

/**
 * Build node_status samples from `/_status/nodes` (+ optional `/_admin/v1/liveness`), with the
 * meaning of `cockroach node status --all`: ranges = sum(replicas), is_available = liveness not
 * expired, is_live = gossiping.
 */
export function buildNodeStatusSamples(
  nodesBody: Json,
  livenessBody: Json | undefined,
  now: number,
): TNodeStatusSample[] {
  const body = camelizeKeys(nodesBody);
  if (!isObj(body) || !Array.isArray(body.nodes)) {
    throw new Error('/_status/nodes: expected an object with a "nodes" array');
  }
  const byId = isObj(body.livenessByNodeId) ? body.livenessByNodeId : {};
  const live = livenessBody === undefined ? undefined : indexLiveness(livenessBody);
  const out: TNodeStatusSample[] = [];
  body.nodes.forEach((raw, i) => {
    if (!isObj(raw) || !isObj(raw.desc)) throw new Error(`/_status/nodes: nodes[${i}].desc is missing`);
    const desc = raw.desc;
    const nodeId = toNumber(desc.nodeId);
    if (!Number.isInteger(nodeId) || nodeId <= 0)
      throw new Error(`/_status/nodes: nodes[${i}].desc.nodeId is invalid`);
    const sums: Record<string, number> = {};
    for (const k of STORE_KEYS) sums[k] = 0;
    for (const store of Array.isArray(raw.storeStatuses) ? raw.storeStatuses : []) {
      if (!isObj(store) || !isObj(store.metrics)) continue;
      for (const k of STORE_KEYS) sums[k] += Math.round(toNumber(store.metrics[k]));
    }
    const metrics = isObj(raw.metrics) ? raw.metrics : {};
    const rec = live?.records.get(nodeId);
    const liveness = live?.statuses.get(nodeId) ?? toLiveness(byId[String(nodeId)]);
    const isAvailable =
      rec?.expirationMs != null ? rec.expirationMs > now : liveness === 'LIVE' || liveness === 'DRAINING';
    const startedAt = nanosToMs(raw.startedAt ?? desc.startedAt);
    const uptimeMetric = toNumber(metrics['sys.uptime']);
    const sampleLiveness: TLiveness = liveness;
    out.push({
      kind: 'node_status',
      ts: now,
      node_id: nodeId,
      address: str(isObj(desc.address) ? desc.address.addressField : ''),
      sql_address: str(isObj(desc.sqlAddress) ? desc.sqlAddress.addressField : ''),
      locality: localityString(desc.locality),
      build: str(isObj(raw.buildInfo) ? raw.buildInfo.tag : '') || str(desc.buildTag),
      started_at: startedAt,
      updated_at: nanosToMs(raw.updatedAt),
      liveness: sampleLiveness,
      is_live: GOSSIPING.has(liveness) && (liveness !== 'DECOMMISSIONING' || isAvailable),
      is_available: isAvailable,
      is_draining: rec?.draining ?? liveness === 'DRAINING',
      membership:
        rec?.membership ??
        (liveness === 'DECOMMISSIONED'
          ? 'decommissioned'
          : liveness === 'DECOMMISSIONING'
            ? 'decommissioning'
            : 'active'),
      replicas: sums.replicas,
      replicas_leaders: sums['replicas.leaders'],
      replicas_leaseholders: sums['replicas.leaseholders'],
      ranges: sums.replicas,
      ranges_unavailable: sums['ranges.unavailable'],
      ranges_underreplicated: sums['ranges.underreplicated'],
      live_bytes: sums.livebytes,
      key_bytes: sums.keybytes,
      value_bytes: sums.valbytes,
      intent_bytes: sums.intentbytes,
      system_bytes: sums.sysbytes,
      capacity: sums.capacity,
      capacity_available: sums['capacity.available'],
      capacity_used: sums['capacity.used'],
      uptime_s: uptimeMetric > 0 ? uptimeMetric : startedAt ? Math.max(0, (now - startedAt) / 1000) : 0,
    });
  });
  return out;
}
