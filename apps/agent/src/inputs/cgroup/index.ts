import { join } from 'node:path';
import type { TCgroupUsageSample } from '@clusterscope/schema';
import { defineInput, type CheckResult } from '../types';
import { ZCgroupConfig, type TCgroupConfig, type TCgroupTarget } from './config';
import {
  createDeviceNamer,
  detectCgroupMode,
  findUnit,
  listChildren,
  readCgroupV1,
  readCgroupV2,
  v1Dirs,
  type TCgroupMode,
} from './reader';

export interface CgroupReader {
  mode: TCgroupMode;
  version: 1 | 2;
  /** Resolve targets to cgroup paths; `missing` lists targets that matched nothing. */
  resolve(): { paths: string[]; missing: string[] };
  read(ts: number): TCgroupUsageSample[];
}

const describeTarget = (t: TCgroupTarget) =>
  'path' in t ? `path ${t.path}` : 'unit' in t ? `unit ${t.unit}` : `children_of ${t.children_of}`;

export function createCgroupReader(cfg: TCgroupConfig, host: string, nodeId: number | null): CgroupReader {
  const mode = detectCgroupMode(cfg.root);
  const version: 1 | 2 = cfg.version === '2' || (cfg.version === 'auto' && mode === 'v2') ? 2 : 1;
  // Directory used to discover cgroups (v1: the memory controller, else cpu).
  const base = version === 2 ? cfg.root : v1Dirs(cfg.root).memory;
  const altBase = version === 2 ? undefined : v1Dirs(cfg.root).cpu;
  const name = createDeviceNamer(cfg.devices_dir);
  const units = new Map<string, string>();

  const resolve = () => {
    const paths = new Set<string>();
    const missing: string[] = [];
    for (const t of cfg.targets) {
      let found: string[] = [];
      if ('path' in t) found = [t.path];
      else if ('unit' in t) {
        let p = units.get(t.unit);
        if (p === undefined) {
          p = findUnit(base, t.unit) ?? (altBase ? findUnit(altBase, t.unit) : undefined);
          if (p !== undefined) units.set(t.unit, p);
        }
        if (p !== undefined) found = [p];
      } else {
        const parent = t.children_of.replace(/\/+$/, '');
        const kids = new Set([
          ...listChildren(join(base, parent)),
          ...(altBase ? listChildren(join(altBase, parent)) : []),
        ]);
        found = [...kids].sort().map((k) => `${parent}/${k}`);
      }
      if (found.length === 0) missing.push(describeTarget(t));
      for (const p of found) paths.add(p);
    }
    return { paths: [...paths], missing };
  };

  return {
    mode,
    version,
    resolve,
    read(ts) {
      const ctx = { ts, host, nodeId, name };
      const out: TCgroupUsageSample[] = [];
      for (const p of resolve().paths) {
        const s = version === 2 ? readCgroupV2(cfg.root, p, ctx) : readCgroupV1(cfg.root, p, ctx);
        if (s) out.push(s);
        else for (const [u, q] of units) if (q === p) units.delete(u); // unit restarted elsewhere: re-resolve
      }
      return out;
    },
  };
}

export const cgroupInput = defineInput({
  name: 'cgroup',
  enabledByDefault: false,
  config: ZCgroupConfig,
  create(cfg, ctx) {
    const reader = createCgroupReader(cfg, ctx.host, ctx.nodeId);
    const warned = new Set<string>();
    return {
      async collect(now) {
        const samples = reader.read(now);
        for (const m of reader.resolve().missing) {
          if (!warned.has(m)) ctx.logger.warn('cgroup target not found', { target: m, root: cfg.root });
          warned.add(m);
        }
        return samples;
      },
      async check() {
        const out: CheckResult[] = [
          {
            name: `cgroup hierarchy ${cfg.root}`,
            ok: reader.mode !== 'none',
            detail:
              reader.mode === 'none'
                ? 'no cgroup v1 or v2 hierarchy found'
                : `${reader.mode}, reading v${reader.version}`,
          },
        ];
        const { paths, missing } = reader.resolve();
        for (const m of missing) out.push({ name: `cgroup target ${m}`, ok: false, detail: 'not found' });
        out.push({
          name: 'cgroup targets',
          ok: paths.length > 0,
          detail: `${paths.length} cgroups: ${paths.slice(0, 5).join(', ')}`,
        });
        return out;
      },
    };
  },
});
