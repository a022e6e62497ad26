import type { TLiveness, TNodeStatusSample } from '@clusterscope/schema';

/** `2022-09-03 16:24:12.001861` (UTC) → epoch ms (µs truncated). */
export function parseCockroachTimestamp(v: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?/.exec(v.trim());
  if (!m) return null;
  const ms = Number(((m[7] ?? '') + '000').slice(0, 3));
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], ms);
}

/** Split one CSV line (RFC 4180 quoting). */
export function splitCsvLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

interface Row {
  line: number;
  cells: Map<string, string>;
}

/** Parse `cockroach node status` output in table (default) or CSV format into header-keyed rows. */
export function parseNodeStatusRows(text: string): Row[] {
  const lines = text.split(/\r?\n/);
  const headerIdx = lines.findIndex((l) => /^\s*id\s*(\||,)/.test(l));
  if (headerIdx < 0) throw new Error('cockroach node status: no header line starting with "id" found');
  const csv = !lines[headerIdx].includes('|');
  const split = (l: string) => (csv ? splitCsvLine(l) : l.split('|')).map((c) => c.trim());
  const header = split(lines[headerIdx]);
  const rows: Row[] = [];
  for (let i = headerIdx + 1; i < lines.length; i++) {
    const l = lines[i];
    if (!l.trim() || /^-+\+/.test(l.trim()) || /^\(\d+ rows?\)$/.test(l.trim())) continue;
    const cells = split(l);
    if (cells.length !== header.length) {
      throw new Error(
        `cockroach node status line ${i + 1}: ${cells.length} columns, header has ${header.length}`,
      );
    }
    rows.push({ line: i + 1, cells: new Map(header.map((h, j) => [h, cells[j]])) });
  }
  return rows;
}

const isNull = (v: string | undefined) => v === undefined || v === '' || v.toUpperCase() === 'NULL';

function deriveLiveness(
  isLive: boolean,
  isAvailable: boolean,
  draining: boolean,
  membership: string,
): TLiveness {
  if (membership === 'decommissioned') return 'DECOMMISSIONED';
  if (membership === 'decommissioning') return 'DECOMMISSIONING';
  if (!isLive) return isAvailable ? 'UNAVAILABLE' : 'DEAD';
  if (draining) return 'DRAINING';
  return isAvailable ? 'LIVE' : 'UNAVAILABLE';
}

/** `cockroach node status [--all|--ranges|--stats|--decommission]` text → node_status samples. */
export function parseNodeStatusOutput(text: string, now: number): TNodeStatusSample[] {
  return parseNodeStatusRows(text).map(({ line, cells }) => {
    const where = `cockroach node status line ${line}`;
    const get = (k: string) => cells.get(k);
    const int = (k: string): number => {
      const v = get(k);
      if (isNull(v)) return 0;
      if (!/^\d+$/.test(v!)) throw new Error(`${where}: column ${k} "${v}" is not a non-negative integer`);
      return Number(v);
    };
    const bool = (k: string): boolean => {
      const v = get(k);
      if (isNull(v)) return false;
      if (v !== 'true' && v !== 'false') throw new Error(`${where}: column ${k} "${v}" is not true/false`);
      return v === 'true';
    };
    const ts = (k: string): number | null => {
      const v = get(k);
      if (isNull(v)) return null;
      const ms = parseCockroachTimestamp(v!);
      if (ms === null) throw new Error(`${where}: column ${k} "${v}" is not a timestamp`);
      return ms;
    };
    const nodeId = int('id');
    if (nodeId <= 0) throw new Error(`${where}: column id is missing`);
    const isLive = bool('is_live');
    const isAvailable = bool('is_available');
    const isDraining = bool('is_draining');
    const membershipRaw = get('membership');
    const membership = isNull(membershipRaw)
      ? bool('is_decommissioning')
        ? 'decommissioning'
        : 'active'
      : membershipRaw!.toLowerCase();
    const startedAt = ts('started_at');
    const replicas = cells.has('ranges') ? int('ranges') : int('gossiped_replicas');
    return {
      kind: 'node_status',
      ts: now,
      node_id: nodeId,
      address: get('address') ?? '',
      sql_address: isNull(get('sql_address')) ? '' : get('sql_address')!,
      locality: isNull(get('locality')) ? '' : get('locality')!,
      build: isNull(get('build')) ? '' : get('build')!,
      started_at: startedAt,
      updated_at: ts('updated_at'),
      liveness: deriveLiveness(isLive, isAvailable, isDraining, membership),
      is_live: isLive,
      is_available: isAvailable,
      is_draining: isDraining,
      membership,
      replicas,
      replicas_leaders: int('replicas_leaders'),
      replicas_leaseholders: int('replicas_leaseholders'),
      ranges: replicas,
      ranges_unavailable: int('ranges_unavailable'),
      ranges_underreplicated: int('ranges_underreplicated'),
      live_bytes: int('live_bytes'),
      key_bytes: int('key_bytes'),
      value_bytes: int('value_bytes'),
      intent_bytes: int('intent_bytes'),
      system_bytes: int('system_bytes'),
      capacity: 0,
      capacity_available: 0,
      capacity_used: 0,
      uptime_s: isLive && startedAt !== null ? Math.max(0, (now - startedAt) / 1000) : 0,
    };
  });
}
