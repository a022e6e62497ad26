/** Builds fake cgroup trees (files in a temp dir) for tests and the agent bench. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp';

function writeTree(root: string, files: Record<string, string>): void {
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), content);
  }
}

/** v2 files of one cgroup; `i` varies counters. */
export function v2CgroupFiles(i: number, limited: boolean): Record<string, string> {
  return {
    'cgroup.procs': '',
    'cpu.stat': `usage_usec ${1000000 + i}\nuser_usec 600000\nsystem_usec 400000\nnr_periods ${500 + i}\nnr_throttled ${20 + i}\nthrottled_usec ${70000 + i}\n`,
    'cpu.max': limited ? '50000 100000\n' : 'max 100000\n',
    'cpu.weight': limited ? '200\n' : '100\n',
    'memory.current': `${268435456 + i}\n`,
    'memory.max': limited ? '1073741824\n' : 'max\n',
    'memory.swap.current': `${4096 * i}\n`,
    'memory.swap.max': limited ? '0\n' : 'max\n',
    'memory.stat': `anon ${100000000 + i}\nfile ${150000000 + i}\nkernel 1000\nshmem 0\n`,
    'io.stat': `8:0 rbytes=${1048576 + i} wbytes=${2097152 + i} rios=${10 + i} wios=${20 + i} dbytes=0 dios=0\n253:1 rbytes=5 wbytes=6 rios=7 wios=8 dbytes=0 dios=0\n`,
    'io.max': limited ? '8:0 rbps=max wbps=10485760 riops=1000 wiops=max\n' : '',
    'cpu.pressure': `some avg10=1.50 avg60=0.80 avg300=0.20 total=${123456 + i}\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n`,
    'memory.pressure':
      'some avg10=0.10 avg60=0.00 avg300=0.00 total=900\nfull avg10=0.05 avg60=0.00 avg300=0.00 total=450\n',
    'io.pressure':
      'some avg10=2.25 avg60=1.00 avg300=0.50 total=77777\nfull avg10=1.75 avg60=0.90 avg300=0.40 total=66666\n',
  };
}

/** A temp v2 hierarchy: postgresql.service (limited) + `extra` unlimited services under system.slice. */
export function makeFakeV2Tree(extra = 1): string {
  const root = tempDir('cgv2');
  const files: Record<string, string> = { 'cgroup.controllers': 'cpuset cpu io memory pids\n' };
  const add = (rel: string, i: number, limited: boolean) => {
    for (const [k, v] of Object.entries(v2CgroupFiles(i, limited))) files[`${rel}/${k}`] = v;
  };
  add('system.slice/postgresql.service', 0, true);
  for (let i = 1; i <= extra; i++) add(`system.slice/svc-${String(i).padStart(2, '0')}.service`, i, false);
  add('user.slice/user-1000.slice/session-1.scope', 99, false);
  writeTree(root, files);
  return root;
}

/** A temp v1 hierarchy (separate cpu/cpuacct/memory/blkio mounts) with one limited service. */
export function makeFakeV1Tree(): string {
  const root = tempDir('cgv1');
  const svc = 'system.slice/postgresql.service';
  writeTree(root, {
    [`cpu/${svc}/cpu.stat`]: 'nr_periods 40\nnr_throttled 3\nthrottled_time 5000000\n',
    [`cpu/${svc}/cpu.cfs_quota_us`]: '150000\n',
    [`cpu/${svc}/cpu.cfs_period_us`]: '100000\n',
    [`cpu/${svc}/cpu.shares`]: '2048\n',
    [`cpuacct/${svc}/cpuacct.usage`]: '987654321000\n',
    [`memory/${svc}/memory.usage_in_bytes`]: '536870912\n',
    [`memory/${svc}/memory.limit_in_bytes`]: '2147483648\n',
    [`memory/${svc}/memory.memsw.usage_in_bytes`]: '541065216\n',
    [`memory/${svc}/memory.memsw.limit_in_bytes`]: '3221225472\n',
    [`memory/${svc}/memory.stat`]: 'cache 1\nrss 2\ntotal_cache 300000000\ntotal_rss 200000000\n',
    [`blkio/${svc}/blkio.throttle.io_service_bytes`]:
      '8:0 Read 4096\n8:0 Write 8192\n8:0 Sync 0\n8:0 Async 0\n8:0 Total 12288\nTotal 12288\n',
    [`blkio/${svc}/blkio.throttle.io_serviced`]: '8:0 Read 1\n8:0 Write 2\n8:0 Total 3\nTotal 3\n',
    [`blkio/${svc}/blkio.throttle.read_bps_device`]: '8:0 1048576\n',
    [`blkio/${svc}/blkio.throttle.write_iops_device`]: '8:0 500\n',
    [`memory/system.slice/other.service/memory.usage_in_bytes`]: '1\n',
    [`memory/system.slice/other.service/memory.limit_in_bytes`]: '9223372036854771712\n',
  });
  return root;
}
