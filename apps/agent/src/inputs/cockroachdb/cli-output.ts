import { TIME_UNTIL_STORE_DEAD_MS, type TLiveness, type TNodeStatusSample } from '@clusterscope/schema';

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
  // Older tables end the header with `|` (an empty last cell): not a column.
  while (header.length > 1 && header.at(-1) === '') header.pop();
  const rows: Row[] = [];
  for (let i = headerIdx + 1; i < lines.length; i++) {
    const l = lines[i];
    // Separator lines: `-----+----` (v20+) and `+----+----+` (v19 and older); the `(N rows)` footer.
    if (!l.trim() || /^[-+]+$/.test(l.trim()) || /^\(\d+ rows?\)$/.test(l.trim())) continue;
    const cells = split(l);
    if (!csv && cells.length === header.length + 1 && cells.at(-1) === '') cells.pop();
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
  silentMs: number | null,
): TLiveness {
  if (membership === 'decommissioned') return 'DECOMMISSIONED';
  if (membership === 'decommissioning') return 'DECOMMISSIONING';
  // is_live=false and is_available=false is no proof of death: the rule is in @clusterscope/schema health.ts
  // (deadFromSilence; the daemon bundle gets its constants only).
  if (!isLive) return silentMs !== null && silentMs >= TIME_UNTIL_STORE_DEAD_MS ? 'DEAD' : 'UNAVAILABLE';
  if (draining) return 'DRAINING';
  return isAvailable ? 'LIVE' : 'UNAVAILABLE';
}

/** `cockroach node status [--all|--ranges|--stats|--decommission]` text → node_status samples. */
export function parseNodeStatusOutput(text: string, now: number): TNodeStatusSample[] {
  const rows = parseNodeStatusRows(text);
  // The cluster's own clock: the newest updated_at in this output (immune to agent/cluster clock skew).
  let newest: number | null = null;
  for (const r of rows) {
    const v = r.cells.get('updated_at');
    const ms = isNull(v) ? null : parseCockroachTimestamp(v!);
    if (ms !== null && (newest === null || ms > newest)) newest = ms;
  }
  return rows.map(({ line, cells }) => {
    const where = `cockroach node status line ${line}`;
    const get = (k: string) => cells.get(k);
    /** A column the output lacks (or a NULL cell) is unknown: null, never 0. */
    const int = (k: string): number | null => {
      const v = get(k);
      if (isNull(v)) return null;
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
    if (nodeId === null || nodeId <= 0) throw new Error(`${where}: column id is missing`);
    /** A NULL cell or an absent column is unknown (null); an empty cell is an empty value (no locality). */
    const text = (k: string): string | null => {
      const v = get(k);
      return v === undefined || v.toUpperCase() === 'NULL' ? null : v;
    };
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
    const updatedAt = ts('updated_at');
    const replicas = cells.has('ranges') ? int('ranges') : int('gossiped_replicas');
    const silentMs = updatedAt !== null && newest !== null ? newest - updatedAt : null;
    return {
      kind: 'node_status',
      ts: now,
      node_id: nodeId,
      address: text('address'),
      sql_address: text('sql_address'),
      locality: text('locality'),
      build: text('build'),
      started_at: startedAt,
      updated_at: updatedAt,
      liveness: deriveLiveness(isLive, isAvailable, isDraining, membership, silentMs),
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
      // The CLI never prints capacity: unknown.
      capacity: null,
      capacity_available: null,
      capacity_used: null,
      uptime_s: isLive && startedAt !== null ? Math.max(0, (now - startedAt) / 1000) : 0,
    };
  });
}
