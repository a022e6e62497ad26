/**
 * Job confinement: where an agent lets benchmark tools write and which hosts they may reach. The agent
 * advertises its limits in the heartbeat; the server checks a run against them before queueing it, and the
 * agent checks again before running (it also resolves symlinks). Pure: no DNS, no file system.
 */
import type { TTool } from './common';

export interface TJobLimits {
  /** Absolute directories file-writing tools (fio, sysbench fileio) may use. */
  allowedDirs: string[];
  /** Hostnames, IP literals, CIDRs or `*` that network tools and database targets may reach. */
  allowedHosts: string[];
  /** Most bytes one job may write (fio size × numjobs, sysbench --file-total-size). */
  maxFileBytes: number;
}

/** sysbench fileio's own default --file-total-size. */
export const SYSBENCH_DEFAULT_FILE_TOTAL = '2G';

/** Cloud metadata names: never reachable unless listed by exactly that name. */
export const METADATA_HOSTS = [
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
] as const;

/** Address ranges never reachable through `*` or a wider CIDR: link-local, metadata, unspecified. */
export const SPECIAL_RANGES = [
  '169.254.0.0/16',
  '100.100.100.200/32', // Alibaba Cloud metadata
  '0.0.0.0/8',
  'fe80::/10',
  'fd00:ec2::254/128', // AWS IMDS over IPv6
  '::/128',
] as const;

/** Bytes of a size like 4k, 64M, 1G (fio and sysbench both count k as 1024). */
export function parseSizeBytes(s: string): number | null {
  const m = /^([1-9][0-9]{0,9})([kKmMgG]?)$/.exec(s);
  if (!m) return null;
  const mult = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(m[1]) * mult;
}

// ---- IP addresses ----

type TAddr = { v: 4 | 6; n: bigint };

/** Canonical host the way URL parsing (and libc's inet_aton) reads it: 0x7f.1 → 127.0.0.1, [::1] → ::1. */
export function normalizeHost(host: string): string | null {
  const h = host.trim();
  if (!h) return null;
  try {
    const bare = h.replace(/^\[|\]$/g, '');
    const u = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`);
    return (
      u.hostname
        .replace(/^\[|\]$/g, '')
        .replace(/\.$/, '')
        .toLowerCase() || null
    );
  } catch {
    return null;
  }
}

function parseAddr(host: string): TAddr | null {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) {
    const p = host.split('.').map(Number);
    if (p.some((x) => x > 255)) return null;
    return { v: 4, n: p.reduce((a, x) => (a << 8n) | BigInt(x), 0n) };
  }
  if (!host.includes(':')) return null;
  const [head, tail] = host.includes('::') ? host.split('::') : [host, undefined];
  const a = head ? head.split(':') : [];
  const b = tail ? tail.split(':') : [];
  if (tail === undefined && a.length !== 8) return null;
  const groups = [...a, ...Array(8 - a.length - b.length).fill('0'), ...b];
  if (groups.length !== 8 || groups.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return null;
  const n = groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
  // IPv4-mapped (::ffff:a.b.c.d) is that IPv4 address.
  if (n >> 32n === 0xffffn) return { v: 4, n: n & 0xffffffffn };
  return { v: 6, n };
}

interface TCidr {
  v: 4 | 6;
  net: bigint;
  bits: number;
}

function parseCidr(entry: string): TCidr | null {
  const [host, bitsText] = entry.split('/');
  const norm = normalizeHost(host ?? '');
  const a = norm ? parseAddr(norm) : null;
  if (!a) return null;
  const max = a.v === 4 ? 32 : 128;
  // An IPv4-mapped entry's prefix counts the 96 mapping bits.
  const raw = bitsText === undefined ? max : Number(bitsText) - (a.v === 4 && host!.includes(':') ? 96 : 0);
  if (!Number.isInteger(raw) || raw < 0 || raw > max) return null;
  const shift = BigInt(max - raw);
  return { v: a.v, net: (a.n >> shift) << shift, bits: raw };
}

const inCidr = (a: TAddr, c: TCidr) =>
  a.v === c.v &&
  a.n >> BigInt((c.v === 4 ? 32 : 128) - c.bits) === c.net >> BigInt((c.v === 4 ? 32 : 128) - c.bits);

const SPECIAL = SPECIAL_RANGES.map((r) => parseCidr(r)!);

/** A CIDR lies inside a special range (so listing it names special addresses explicitly). */
const cidrIsSpecial = (c: TCidr) =>
  SPECIAL.some((s) => s.v === c.v && c.bits >= s.bits && inCidr({ v: c.v, n: c.net }, s));

/** Checks an allowed_hosts entry; the message names what is wrong. */
export function checkHostEntry(entry: string): string | null {
  if (entry === '*') return null;
  if (entry.includes('/')) return parseCidr(entry) ? null : `'${entry}' is not a valid CIDR`;
  return normalizeHost(entry) ? null : `'${entry}' is not a valid host name or address`;
}

/** Why `host` may not be reached under `allowed`, or null when it may. */
export function hostRefusal(host: string, allowed: readonly string[]): string | null {
  const h = normalizeHost(host);
  if (!h) return 'a host name is required';
  const addr = parseAddr(h);
  const special =
    (addr !== null && SPECIAL.some((s) => inCidr(addr, s))) ||
    (METADATA_HOSTS as readonly string[]).includes(h);
  for (const e of allowed) {
    if (e === '*') {
      if (!special) return null;
      continue;
    }
    if (e.includes('/')) {
      const c = parseCidr(e);
      if (c && addr && inCidr(addr, c) && (!special || cidrIsSpecial(c))) return null;
      continue;
    }
    const n = normalizeHost(e);
    if (!n) continue;
    if (n === h) return null;
    const ea = parseAddr(n);
    if (ea && addr && ea.v === addr.v && ea.n === addr.n) return null;
  }
  if (special)
    return `host ${h} is a link-local or metadata address; it is reachable only when listed by itself in the agent's jobs.allowed_hosts`;
  return `host ${h} is not in the agent's jobs.allowed_hosts (${allowed.length ? allowed.join(', ') : 'empty'})`;
}

// ---- paths ----

/** Lexically normalized absolute path, or null (relative, `..`, odd characters). */
export function normalizeDir(p: string): string | null {
  if (!/^\/[A-Za-z0-9_./@+-]*$/.test(p)) return null;
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.includes('..')) return null;
  return '/' + parts.join('/');
}

export const isInsideDir = (p: string, dir: string) => dir === '/' || p === dir || p.startsWith(dir + '/');

/** Why `dir` may not be written, or null. Lexical only; the agent also resolves symlinks. */
export function dirRefusal(dir: string, allowed: readonly string[]): string | null {
  const d = normalizeDir(dir);
  if (!d) return `${dir} must be an absolute directory path without '..'`;
  const ok = allowed.map(normalizeDir).some((a) => a !== null && isInsideDir(d, a));
  return ok
    ? null
    : `directory ${d} is outside the agent's jobs.allowed_dirs (${allowed.length ? allowed.join(', ') : 'empty'})`;
}

// ---- a job against limits ----

/** Bytes a file-writing job writes, or null for tools that write no files. */
export function jobFileBytes(tool: TTool, params: Record<string, unknown>): number | null {
  if (tool === 'fio') {
    const size = parseSizeBytes(String(params.size ?? '64M')) ?? Infinity;
    const jobs = typeof params.numjobs === 'number' ? params.numjobs : 1;
    return size * jobs;
  }
  if (tool === 'sysbench' && params.test === 'fileio')
    return parseSizeBytes(String(params.fileTotalSize ?? SYSBENCH_DEFAULT_FILE_TOTAL)) ?? Infinity;
  return null;
}

/** The host a URL target connects to ('' for none), or null when the target is not a URL. */
export function targetHost(target: string): string | null {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return null;
  try {
    return new URL(target).hostname;
  } catch {
    return null;
  }
}

const fmtBytes = (n: number) =>
  n >= 1024 ** 3 ? `${+(n / 1024 ** 3).toFixed(2)} GiB` : `${+(n / 1024 ** 2).toFixed(2)} MiB`;

/**
 * Every reason a job breaks `limits` (empty when it fits). `target` is the resolved target; `workDir` the
 * directory a file-writing job with no target uses (unknown on the server: then only the target is checked).
 */
export function jobRefusals(
  job: { tool: TTool; params: Record<string, unknown>; target: string },
  limits: TJobLimits,
  workDir?: string,
): string[] {
  const out: string[] = [];
  const bytes = jobFileBytes(job.tool, job.params);
  if (bytes !== null) {
    if (bytes > limits.maxFileBytes)
      out.push(
        `writes ${Number.isFinite(bytes) ? fmtBytes(bytes) : 'an unknown size'}, more than the agent's jobs.max_file_bytes (${fmtBytes(limits.maxFileBytes)})`,
      );
    const dir = job.target || workDir;
    if (dir !== undefined && !job.target.startsWith('secret:')) {
      const why = dirRefusal(dir, limits.allowedDirs);
      if (why) out.push(why);
    }
    return out;
  }
  const host = targetHost(job.target);
  if (host !== null) {
    const why = hostRefusal(host, limits.allowedHosts);
    if (why) out.push(why);
  }
  return out;
}
