import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getMachineKind } from '@clusterscope/schema';
import { describe, expect, it } from 'vitest';
import { readEnv } from '../env';
import { collectMachine } from './machine';

function roots(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'machine-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return { proc: join(dir, 'proc'), cgroup: join(dir, 'cgroup') };
}

describe('collectMachine', () => {
  it('reads the CPU model, the cgroup v2 limits and the GitHub runner name', () => {
    const m = collectMachine(
      readEnv({ RUNNER_NAME: 'GitHub Actions 12' }),
      roots({
        'proc/cpuinfo':
          'processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7763 64-Core Processor\n',
        'cgroup/cpu.max': '200000 100000\n',
        'cgroup/memory.max': `${7 * 1024 ** 3}\n`,
      }),
    );
    expect(m).toMatchObject({
      cpu_model: 'AMD EPYC 7763 64-Core Processor',
      cgroup_cpu_cores: 2,
      cgroup_memory_bytes: 7 * 1024 ** 3,
      runner: 'GitHub Actions 12',
    });
    expect(m.cores).toBeGreaterThan(0);
    expect(m.memory_bytes).toBeGreaterThan(0);
    expect(m.kernel).toBeTruthy();
  });

  it('reads cgroup v1 quotas, and "max"/no-limit values as none; GitLab names the runner', () => {
    const v1 = collectMachine(
      readEnv({ CI_RUNNER_DESCRIPTION: 'shared-runner-3' }),
      roots({
        'proc/cpuinfo': 'model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n',
        'cgroup/cpu/cpu.cfs_quota_us': '150000\n',
        'cgroup/cpu/cpu.cfs_period_us': '100000\n',
        'cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n',
      }),
    );
    expect(v1).toMatchObject({ cgroup_cpu_cores: 1.5, cgroup_memory_bytes: null, runner: 'shared-runner-3' });
    const none = collectMachine(
      readEnv({}),
      roots({ 'cgroup/cpu.max': 'max 100000\n', 'cgroup/memory.max': 'max\n' }),
    );
    expect(none).toMatchObject({ cgroup_cpu_cores: null, cgroup_memory_bytes: null });
    expect(none.cpu_model).toBeTruthy(); // os.cpus() when /proc/cpuinfo is missing
  });
});

describe('getMachineKind', () => {
  const base = {
    cpu_model: 'AMD EPYC 7763 64-Core Processor',
    cores: 4,
    memory_bytes: 16.7e9,
    kernel: '6.5.0-1025-azure',
    os: 'linux/x64',
    cgroup_cpu_cores: null,
    cgroup_memory_bytes: null,
    runner: 'GitHub Actions 1',
  };
  it('is CPU model, usable cores and memory rounded to GiB: runner name and kernel do not count', () => {
    expect(getMachineKind(base)).toBe('AMD EPYC 7763 64-Core Processor, 4 cores, 16 GiB');
    expect(getMachineKind({ ...base, memory_bytes: 16.9e9, runner: 'GitHub Actions 7', kernel: '6.8' })).toBe(
      getMachineKind(base),
    );
    expect(getMachineKind({ ...base, cgroup_cpu_cores: 2, cgroup_memory_bytes: 4 * 1024 ** 3 })).toBe(
      'AMD EPYC 7763 64-Core Processor, 2 cores, 4 GiB',
    );
    expect(getMachineKind({ ...base, cpu_model: 'Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz' })).not.toBe(
      getMachineKind(base),
    );
  });
});
