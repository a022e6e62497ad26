import { statfsSync } from 'node:fs';
import os from 'node:os';
import type { THostMetricsSample } from '@clusterscope/schema';
import { errorMessage } from '../../lib/log';
import { parseKeyValues, readText } from '../../lib/proc';
import { defineInput } from '../types';
import { ZHostConfig, type THostConfig } from './config';

/** /proc/meminfo (kB) → bytes of MemTotal / MemAvailable. */
export function parseMeminfo(text: string | undefined): { total: number; available: number } {
  const kv = parseKeyValues(text);
  const total = kv.get('MemTotal');
  if (total === undefined) throw new Error('meminfo: MemTotal line missing');
  // Kernels < 3.14 lack MemAvailable: approximate with free + buffers + cached.
  const avail =
    kv.get('MemAvailable') ?? (kv.get('MemFree') ?? 0) + (kv.get('Buffers') ?? 0) + (kv.get('Cached') ?? 0);
  return { total: total * 1024, available: avail * 1024 };
}

export function readDisk(path: string): { path: string; total: number; used: number; avail: number } {
  const s = statfsSync(path);
  return { path, total: s.blocks * s.bsize, used: (s.blocks - s.bfree) * s.bsize, avail: s.bavail * s.bsize };
}

export function collectHost(
  cfg: THostConfig,
  host: string,
  nodeId: number | null,
  now: number,
  onDiskError?: (path: string, err: string) => void,
): THostMetricsSample {
  const [load1, load5, load15] = os.loadavg();
  const mem = parseMeminfo(readText(cfg.meminfo_path));
  const disks: THostMetricsSample['disks'] = [];
  for (const p of cfg.disks) {
    try {
      disks.push(readDisk(p));
    } catch (e) {
      onDiskError?.(p, errorMessage(e));
    }
  }
  return {
    kind: 'host_metrics',
    ts: now,
    host,
    node_id: nodeId,
    cpus: os.availableParallelism(),
    load1,
    load5,
    load15,
    mem_total: mem.total,
    mem_available: mem.available,
    disks,
  };
}

export const hostInput = defineInput({
  name: 'host',
  enabledByDefault: true,
  config: ZHostConfig,
  create(cfg, ctx) {
    const warned = new Set<string>();
    const onDiskError = (path: string, err: string) => {
      if (!warned.has(path)) ctx.logger.warn('disk not readable', { path, err });
      warned.add(path);
    };
    return {
      async collect(now) {
        return [collectHost(cfg, ctx.host, ctx.nodeId, now, onDiskError)];
      },
      async check() {
        const out = [];
        try {
          const m = parseMeminfo(readText(cfg.meminfo_path));
          out.push({
            name: `host ${cfg.meminfo_path}`,
            ok: true,
            detail: `${Math.round(m.total / 2 ** 20)} MiB total`,
          });
        } catch (e) {
          out.push({ name: `host ${cfg.meminfo_path}`, ok: false, detail: errorMessage(e) });
        }
        for (const p of cfg.disks) {
          try {
            const d = readDisk(p);
            out.push({
              name: `host disk ${p}`,
              ok: true,
              detail: `${Math.round(d.avail / 2 ** 30)} GiB free`,
            });
          } catch (e) {
            out.push({ name: `host disk ${p}`, ok: false, detail: errorMessage(e) });
          }
        }
        return out;
      },
    };
  },
});
