import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TCgroupUsageSample } from '@clusterscope/schema';
import { parseKeyValues, readText } from '../../lib/proc';

export type TCgroupMode = 'v2' | 'v1' | 'hybrid' | 'none';
type TIo = TCgroupUsageSample['io'][number];
type TPsi = NonNullable<TCgroupUsageSample['psi']>;

/** Which hierarchy is mounted at `root`: unified, legacy per-controller, or both. */
export function detectCgroupMode(root: string): TCgroupMode {
  if (existsSync(join(root, 'cgroup.controllers'))) return 'v2';
  const v1 = ['cpu', 'cpuacct', 'cpu,cpuacct', 'memory', 'blkio'].some((c) => existsSync(join(root, c)));
  if (v1) return existsSync(join(root, 'unified', 'cgroup.controllers')) ? 'hybrid' : 'v1';
  return 'none';
}

/** v1 limits of "unlimited" are huge page-aligned numbers (e.g. 9223372036854771712). */
const V1_UNLIMITED = 2 ** 62;

function firstNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text.trim().split(/\s+/)[0]);
  return Number.isFinite(n) ? n : undefined;
}

/** "max" → null, number → number, missing → null. */
function limitValue(text: string | undefined): number | null {
  if (text === undefined) return null;
  const t = text.trim();
  if (t === 'max' || t === '') return null;
  const n = Number(t);
  return Number.isFinite(n) && n >= 0 && n < V1_UNLIMITED ? n : null;
}

/** cgroup v2 `cpu.max`: "max 100000" | "50000 100000". */
export function parseCpuMax(text: string | undefined): { quota: number | null; period: number } {
  const [q, p] = (text ?? 'max 100000').trim().split(/\s+/);
  return { quota: q === 'max' ? null : Number(q), period: p ? Number(p) : 100000 };
}

/** PSI file: "some avg10=.. total=..\nfull avg10=.. total=..". */
export function parsePressure(text: string | undefined): {
  some?: { avg10: number; total: number };
  full?: { avg10: number; total: number };
} {
  const out: ReturnType<typeof parsePressure> = {};
  for (const line of (text ?? '').split('\n')) {
    const m = /^(some|full)\s+avg10=([\d.]+).*\btotal=(\d+)/.exec(line);
    if (m) out[m[1] as 'some' | 'full'] = { avg10: Number(m[2]), total: Number(m[3]) };
  }
  return out;
}

/** `dir` (normalised, as from `join`) + `/` + a file name: `join` per file costs more than the read itself. */
const inDir = (dir: string) => (dir.endsWith('/') ? dir : dir + '/');

function readPsi(dir: string): TPsi | null {
  const base = inDir(dir);
  const cpu = readText(base + 'cpu.pressure');
  const mem = readText(base + 'memory.pressure');
  const io = readText(base + 'io.pressure');
  if (cpu === undefined && mem === undefined && io === undefined) return null;
  const c = parsePressure(cpu);
  const m = parsePressure(mem);
  const i = parsePressure(io);
  return {
    cpu_some_avg10: c.some?.avg10 ?? 0,
    cpu_some_total: c.some?.total ?? 0,
    memory_some_avg10: m.some?.avg10 ?? 0,
    memory_full_avg10: m.full?.avg10 ?? 0,
    memory_full_total: m.full?.total ?? 0,
    io_some_avg10: i.some?.avg10 ?? 0,
    io_full_avg10: i.full?.avg10 ?? 0,
    io_full_total: i.full?.total ?? 0,
  };
}

type DeviceNamer = (majmin: string) => string;

/** major:minor → kernel name via /sys/dev/block/<maj:min>/uevent; cached. */
export function createDeviceNamer(devicesDir: string | false): DeviceNamer {
  const cache = new Map<string, string>();
  return (majmin) => {
    if (devicesDir === false) return majmin;
    let name = cache.get(majmin);
    if (name === undefined) {
      const m = /^DEVNAME=(.+)$/m.exec(readText(join(devicesDir, majmin, 'uevent')) ?? '');
      name = m ? m[1].slice(0, 32) : majmin;
      cache.set(majmin, name);
    }
    return name;
  };
}

const emptyIo = (device: string): TIo => ({
  device,
  rbytes: 0,
  wbytes: 0,
  rios: 0,
  wios: 0,
  rbps_max: null,
  wbps_max: null,
  riops_max: null,
  wiops_max: null,
});

/**
 * Per-device rows of cgroup io files: `each` calls `fill` for every `maj:min …` line with the rest of its
 * fields and a getter of the device's row (created, named, on first use).
 */
function ioRows(name: DeviceNamer) {
  const devs = new Map<string, TIo>();
  return {
    each(text: string | undefined, fill: (fields: string[], row: () => TIo) => void) {
      for (const line of (text ?? '').split('\n')) {
        const [dev, ...fields] = line.trim().split(/\s+/);
        if (/^\d+:\d+$/.test(dev ?? ''))
          fill(fields, () => devs.get(dev) ?? devs.set(dev, emptyIo(name(dev))).get(dev)!);
      }
    },
    rows: () => [...devs.values()],
  };
}

/** v2 io.stat + io.max → per-device rows. */
export function parseIoV2(stat: string | undefined, max: string | undefined, name: DeviceNamer): TIo[] {
  const io = ioRows(name);
  io.each(stat, (kv, get) => {
    const row = get();
    for (const p of kv) {
      const [k, v] = p.split('=');
      if (k === 'rbytes' || k === 'wbytes' || k === 'rios' || k === 'wios') row[k] = Number(v) || 0;
    }
  });
  io.each(max, (kv, get) => {
    const row = get();
    for (const p of kv) {
      const [k, v] = p.split('=');
      if (k === 'rbps' || k === 'wbps' || k === 'riops' || k === 'wiops') row[`${k}_max`] = limitValue(v);
    }
  });
  return io.rows();
}

/** v1 blkio.throttle.* files → per-device rows. */
export function parseIoV1(
  files: {
    bytes?: string;
    ios?: string;
    readBps?: string;
    writeBps?: string;
    readIops?: string;
    writeIops?: string;
  },
  name: DeviceNamer,
): TIo[] {
  const io = ioRows(name);
  const counters = (text: string | undefined, r: 'rbytes' | 'rios', w: 'wbytes' | 'wios') =>
    io.each(text, ([op, v], get) => {
      if (op === 'Read') get()[r] = Number(v) || 0;
      else if (op === 'Write') get()[w] = Number(v) || 0;
    });
  counters(files.bytes, 'rbytes', 'wbytes');
  counters(files.ios, 'rios', 'wios');
  const limits = (text: string | undefined, key: 'rbps_max' | 'wbps_max' | 'riops_max' | 'wiops_max') =>
    io.each(text, ([v], get) => {
      get()[key] = limitValue(v);
    });
  limits(files.readBps, 'rbps_max');
  limits(files.writeBps, 'wbps_max');
  limits(files.readIops, 'riops_max');
  limits(files.writeIops, 'wiops_max');
  return io.rows();
}

interface ReadContext {
  ts: number;
  host: string;
  nodeId: number | null;
  name: DeviceNamer;
}

/** The fields every cgroup sample starts with. */
const sampleHead = (ctx: ReadContext, rel: string, version: 1 | 2) =>
  ({ kind: 'cgroup_usage', ts: ctx.ts, host: ctx.host, node_id: ctx.nodeId, cgroup: rel, version }) as const;

/** Read one v2 cgroup (`dir` is root + rel). Undefined when the directory is gone. */
export function readCgroupV2(root: string, rel: string, ctx: ReadContext): TCgroupUsageSample | undefined {
  const dir = join(root, rel);
  if (!isDir(dir)) return undefined;
  const base = inDir(dir);
  const f = (n: string) => readText(base + n);
  const cpu = parseKeyValues(f('cpu.stat'));
  const cpuMax = parseCpuMax(f('cpu.max'));
  const mstat = parseKeyValues(f('memory.stat'));
  return {
    ...sampleHead(ctx, rel, 2),
    cpu_usage_usec: cpu.get('usage_usec') ?? 0,
    cpu_nr_periods: cpu.get('nr_periods') ?? 0,
    cpu_nr_throttled: cpu.get('nr_throttled') ?? 0,
    cpu_throttled_usec: cpu.get('throttled_usec') ?? 0,
    cpu_quota_usec: cpuMax.quota,
    cpu_period_usec: cpuMax.period,
    cpu_weight: firstNumber(f('cpu.weight')) ?? null,
    cpu_shares: null,
    mem_current: firstNumber(f('memory.current')) ?? 0,
    mem_max: limitValue(f('memory.max')),
    mem_swap_current: firstNumber(f('memory.swap.current')) ?? 0,
    mem_swap_max: limitValue(f('memory.swap.max')),
    mem_anon: mstat.get('anon') ?? 0,
    mem_file: mstat.get('file') ?? 0,
    io: parseIoV2(f('io.stat'), f('io.max'), ctx.name),
    psi: readPsi(dir),
  };
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Per-controller directories of a v1 (or hybrid) hierarchy. */
export function v1Dirs(root: string): { cpu: string; cpuacct: string; memory: string; blkio: string } {
  const pick = (...names: string[]) => names.map((n) => join(root, n)).find(isDir) ?? join(root, names[0]);
  return {
    cpu: pick('cpu', 'cpu,cpuacct'),
    cpuacct: pick('cpuacct', 'cpu,cpuacct', 'cpu'),
    memory: pick('memory'),
    blkio: pick('blkio'),
  };
}

/** Read one v1 cgroup across controllers; PSI from the hybrid unified mount when present. */
export function readCgroupV1(root: string, rel: string, ctx: ReadContext): TCgroupUsageSample | undefined {
  const d = v1Dirs(root);
  const dirs = [d.cpu, d.cpuacct, d.memory, d.blkio].map((c) => join(c, rel));
  if (!dirs.some(isDir)) return undefined;
  const [cpuDir, memDir, blkDir] = [d.cpu, d.memory, d.blkio].map((c) => inDir(join(c, rel)));
  const cpu = (n: string) => readText(cpuDir + n);
  const mem = (n: string) => readText(memDir + n);
  const blk = (n: string) => readText(blkDir + n);
  const cstat = parseKeyValues(cpu('cpu.stat'));
  const quota = firstNumber(cpu('cpu.cfs_quota_us'));
  const mstat = parseKeyValues(mem('memory.stat'));
  const usage = firstNumber(mem('memory.usage_in_bytes')) ?? 0;
  const limit = limitValue(mem('memory.limit_in_bytes'));
  const memsw = firstNumber(mem('memory.memsw.usage_in_bytes'));
  const memswLimit = limitValue(mem('memory.memsw.limit_in_bytes'));
  const usageNs = firstNumber(readText(join(d.cpuacct, rel, 'cpuacct.usage'))) ?? 0;
  const recursive = blk('blkio.throttle.io_service_bytes_recursive') !== undefined;
  return {
    ...sampleHead(ctx, rel, 1),
    cpu_usage_usec: Math.floor(usageNs / 1000),
    cpu_nr_periods: cstat.get('nr_periods') ?? 0,
    cpu_nr_throttled: cstat.get('nr_throttled') ?? 0,
    cpu_throttled_usec: Math.floor((cstat.get('throttled_time') ?? 0) / 1000),
    cpu_quota_usec: quota === undefined || quota < 0 ? null : quota,
    cpu_period_usec: firstNumber(cpu('cpu.cfs_period_us')) ?? 100000,
    cpu_weight: null,
    cpu_shares: firstNumber(cpu('cpu.shares')) ?? null,
    mem_current: usage,
    mem_max: limit,
    mem_swap_current: memsw === undefined ? 0 : Math.max(0, memsw - usage),
    mem_swap_max: memswLimit === null ? null : Math.max(0, memswLimit - (limit ?? 0)),
    mem_anon: mstat.get('total_rss') ?? mstat.get('rss') ?? 0,
    mem_file: mstat.get('total_cache') ?? mstat.get('cache') ?? 0,
    io: parseIoV1(
      {
        bytes: blk(
          recursive ? 'blkio.throttle.io_service_bytes_recursive' : 'blkio.throttle.io_service_bytes',
        ),
        ios: blk(recursive ? 'blkio.throttle.io_serviced_recursive' : 'blkio.throttle.io_serviced'),
        readBps: blk('blkio.throttle.read_bps_device'),
        writeBps: blk('blkio.throttle.write_bps_device'),
        readIops: blk('blkio.throttle.read_iops_device'),
        writeIops: blk('blkio.throttle.write_iops_device'),
      },
      ctx.name,
    ),
    psi: readPsi(join(root, 'unified', rel)),
  };
}

/** Child cgroup directories (names only). */
export function listChildren(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** Find a systemd unit's cgroup: /system.slice/<unit>, else a breadth-first search (depth ≤ 4). */
export function findUnit(base: string, unit: string): string | undefined {
  if (isDir(join(base, 'system.slice', unit))) return `/system.slice/${unit}`;
  let level = [''];
  for (let depth = 0; depth < 4 && level.length; depth++) {
    const next: string[] = [];
    for (const rel of level) {
      for (const c of listChildren(join(base, rel))) {
        const p = `${rel}/${c}`;
        if (c === unit) return p;
        next.push(p);
      }
    }
    level = next;
  }
  return undefined;
}
