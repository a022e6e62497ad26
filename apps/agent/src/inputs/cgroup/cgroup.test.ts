import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ZCgroupUsageSample } from '@clusterscope/schema';
import { makeFakeV1Tree, makeFakeV2Tree } from '../../../test/cgroup-fixture';
import { silentLogger } from '../../lib/log';
import { ZCgroupConfig } from './config';
import { cgroupInput, createCgroupReader } from './index';
import { detectCgroupMode, parseCpuMax, parseIoV2, parsePressure } from './reader';

const TS = 1_700_000_000_000;
const v2 = makeFakeV2Tree(2);
const v1 = makeFakeV1Tree();
afterAll(() => {
  rmSync(v2, { recursive: true, force: true });
  rmSync(v1, { recursive: true, force: true });
});
const reader = (cfg: Record<string, unknown>) =>
  createCgroupReader(ZCgroupConfig.parse({ devices_dir: false, ...cfg }), 'db1', 3);
/** An io row's limits with no io.max line for the device. */
const NO_IO_LIMITS = { rbps_max: null, wbps_max: null, riops_max: null, wiops_max: null };
/** The reader's one sample at TS, checked against the ingest schema. */
const readValid = (r: ReturnType<typeof reader>) => {
  const [s] = r.read(TS);
  expect(ZCgroupUsageSample.parse(s)).toEqual(s);
  return s;
};
/** The one sample of `target` under `root`, read once the reader detected `mode`. */
const readIn = (root: string, target: Record<string, string>, mode: string) => {
  const r = reader({ root, targets: [target] });
  expect(r.mode).toBe(mode);
  return readValid(r);
};
const POSTGRES = { unit: 'postgresql.service' };

describe('cgroup v2 (fake tree with limits)', () => {
  it('detects v2 and reads exact values for a unit', () => {
    const s = readIn(v2, POSTGRES, 'v2');
    expect(s).toEqual({
      kind: 'cgroup_usage',
      ts: TS,
      host: 'db1',
      node_id: 3,
      cgroup: '/system.slice/postgresql.service',
      version: 2,
      cpu_usage_usec: 1000000,
      cpu_nr_periods: 500,
      cpu_nr_throttled: 20,
      cpu_throttled_usec: 70000,
      cpu_quota_usec: 50000,
      cpu_period_usec: 100000,
      cpu_weight: 200,
      cpu_shares: null,
      mem_current: 268435456,
      mem_max: 1073741824,
      mem_swap_current: 0,
      mem_swap_max: 0,
      mem_anon: 100000000,
      mem_file: 150000000,
      io: [
        {
          device: '8:0',
          rbytes: 1048576,
          wbytes: 2097152,
          rios: 10,
          wios: 20,
          rbps_max: null,
          wbps_max: 10485760,
          riops_max: 1000,
          wiops_max: null,
        },
        { device: '253:1', rbytes: 5, wbytes: 6, rios: 7, wios: 8, ...NO_IO_LIMITS },
      ],
      psi: {
        cpu_some_avg10: 1.5,
        cpu_some_total: 123456,
        memory_some_avg10: 0.1,
        memory_full_avg10: 0.05,
        memory_full_total: 450,
        io_some_avg10: 2.25,
        io_full_avg10: 1.75,
        io_full_total: 66666,
      },
    });
  });

  it('lists children, reports unlimited as null, dedups and reports missing targets', () => {
    const r = reader({
      root: v2,
      targets: [
        { children_of: '/system.slice' },
        { path: '/system.slice/svc-01.service' },
        { unit: 'nope.service' },
        { unit: 'session-1.scope' },
      ],
    });
    expect(r.resolve()).toEqual({
      paths: [
        '/system.slice/postgresql.service',
        '/system.slice/svc-01.service',
        '/system.slice/svc-02.service',
        '/user.slice/user-1000.slice/session-1.scope',
      ],
      missing: ['unit nope.service'],
    });
    const s = r.read(TS);
    expect(s).toHaveLength(4);
    expect(s[1]).toMatchObject({
      cpu_quota_usec: null,
      mem_max: null,
      mem_swap_max: null,
      cpu_weight: 100,
      mem_swap_current: 4096,
    });
  });

  it('skips a configured path that does not exist', () => {
    expect(reader({ root: v2, targets: [{ path: '/gone.service' }] }).read(TS)).toEqual([]);
  });

  it('parses helpers', () => {
    expect(parseCpuMax('max 100000')).toEqual({ quota: null, period: 100000 });
    expect(parseCpuMax('150000 50000\n')).toEqual({ quota: 150000, period: 50000 });
    expect(parsePressure('some avg10=0.00 avg60=0.00 avg300=0.00 total=5')).toEqual({
      some: { avg10: 0, total: 5 },
    });
    expect(parseIoV2('garbage\n8:16 rbytes=1 bogus', '8:16 wiops=20', (d) => `dev${d}`)).toEqual([
      { device: 'dev8:16', rbytes: 1, wbytes: 0, rios: 0, wios: 0, ...NO_IO_LIMITS, wiops_max: 20 },
    ]);
  });
});

describe('cgroup v1 (fake tree with limits)', () => {
  it('reads exact values across controllers', () => {
    const s = readIn(v1, POSTGRES, 'v1');
    expect(s).toMatchObject({
      version: 1,
      cgroup: '/system.slice/postgresql.service',
      cpu_usage_usec: 987654321,
      cpu_nr_periods: 40,
      cpu_nr_throttled: 3,
      cpu_throttled_usec: 5000,
      cpu_quota_usec: 150000,
      cpu_period_usec: 100000,
      cpu_shares: 2048,
      cpu_weight: null,
      mem_current: 536870912,
      mem_max: 2147483648,
      mem_swap_current: 4194304,
      mem_swap_max: 1073741824,
      mem_anon: 200000000,
      mem_file: 300000000,
      io: [
        {
          device: '8:0',
          rbytes: 4096,
          wbytes: 8192,
          rios: 1,
          wios: 2,
          rbps_max: 1048576,
          wbps_max: null,
          riops_max: null,
          wiops_max: 500,
        },
      ],
      psi: null,
    });
  });

  it('treats the v1 "unlimited" number as null', () => {
    const [s] = reader({ root: v1, targets: [{ path: '/system.slice/other.service' }] }).read(TS);
    expect(s).toMatchObject({ mem_current: 1, mem_max: null, cpu_quota_usec: null });
  });
});

// Real hierarchies: this machine is hybrid (v1 controllers + v2 at /unified); a pure-v2 host reads v2.
const realMode = detectCgroupMode('/sys/fs/cgroup');
const realV2Root = realMode === 'v2' ? '/sys/fs/cgroup' : '/sys/fs/cgroup/unified';

describe('real hierarchies on this machine', () => {
  it('detects the host mode and reads the root cgroup', () => {
    expect(['hybrid', 'v1', 'v2']).toContain(realMode);
    const r = reader({ root: '/sys/fs/cgroup', targets: [{ path: '/' }] });
    expect(r.version).toBe(realMode === 'v2' ? 2 : 1);
    const s = readValid(r);
    expect(s.cpu_usage_usec).toBeGreaterThan(0);
    expect(s.cpu_quota_usec).toBeNull();
    if (r.version === 1) {
      expect(s.mem_current).toBeGreaterThan(0);
      expect(s.cpu_shares).toBe(1024);
    }
    // Hybrid: PSI comes from the unified mount.
    if (realMode !== 'v1') expect(s.psi).not.toBeNull();
  });

  it('reads the real v2 unified mount', () => {
    const s = readIn(realV2Root, { path: '/' }, 'v2');
    expect(s.version).toBe(2);
    expect(s.cpu_usage_usec).toBeGreaterThan(0);
    expect(s.psi?.cpu_some_total).toBeGreaterThan(0);
  });

  it('check() reports the hierarchy and targets', async () => {
    const input = cgroupInput.create(
      ZCgroupConfig.parse({ targets: [{ path: '/' }, { unit: 'absent.service' }] }),
      {
        host: 'h',
        nodeId: null,
        version: 't',
        startedAt: 0,
        logger: silentLogger,
        outboxStats: () => ({ bytes: 0, pending: 0, evictions: 0 }),
      },
    );
    const checks = await input.check();
    expect(checks[0]).toMatchObject({
      ok: true,
      detail: `${realMode}, reading v${realMode === 'v2' ? 2 : 1}`,
    });
    expect(checks.find((c) => c.name === 'cgroup target unit absent.service')?.ok).toBe(false);
    expect(await input.collect(TS)).toHaveLength(1);
  });
});
