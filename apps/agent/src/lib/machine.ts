import { availableParallelism, arch, cpus, hostname, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { TMachine } from '@clusterscope/schema';
import type { TEnv } from '../env';
import { readText } from './proc';

/** Where the host's files are: `/proc` and `/sys/fs/cgroup`, or a container's mounts of the host's. */
export type TMachineRoots = { proc: string; cgroup: string };
const HOST: TMachineRoots = { proc: '/proc', cgroup: '/sys/fs/cgroup' };

/** cgroup v1 reports "no limit" as a page-rounded 2^63: anything this large is no limit. */
const NO_LIMIT = 2 ** 60;

/** The first `model name` (x86) or `Model`/`CPU part`-less `Hardware` (ARM) of /proc/cpuinfo. */
function readCpuModel(cpuinfo: string | undefined): string | null {
  for (const line of (cpuinfo ?? '').split('\n')) {
    const colon = line.indexOf(':');
    const key = line.slice(0, colon).trim();
    if (colon > 0 && (key === 'model name' || key === 'Model' || key === 'Hardware')) {
      const v = line.slice(colon + 1).trim();
      if (v) return v.slice(0, 256);
    }
  }
  return null;
}

/** The CPU limit in cores: v2 `cpu.max` ("200000 100000", "max 100000") or v1 CFS quota/period. */
function readCpuLimit(root: string): number | null {
  const v2 = readText(join(root, 'cpu.max'))?.trim().split(/\s+/);
  if (v2 && v2.length === 2) return v2[0] === 'max' ? null : positive(Number(v2[0]) / Number(v2[1]));
  const quota = Number(readText(join(root, 'cpu', 'cpu.cfs_quota_us'))?.trim());
  const period = Number(readText(join(root, 'cpu', 'cpu.cfs_period_us'))?.trim());
  return quota > 0 && period > 0 ? positive(quota / period) : null;
}

/** The memory limit in bytes: v2 `memory.max` ("max" or bytes) or v1 `memory.limit_in_bytes`. */
function readMemoryLimit(root: string): number | null {
  const text = readText(join(root, 'memory.max')) ?? readText(join(root, 'memory', 'memory.limit_in_bytes'));
  const n = Number(text?.trim());
  return Number.isSafeInteger(n) && n > 0 && n < NO_LIMIT ? n : null;
}

const positive = (n: number) => (Number.isFinite(n) && n > 0 ? Number(n.toFixed(2)) : null);

/**
 * The machine this process runs on: CPU model (/proc/cpuinfo, else os.cpus()), logical cores, memory,
 * kernel, the cgroup's CPU and memory limits, and the CI runner's name (else the host name).
 */
export function collectMachine(env: TEnv, roots: TMachineRoots = HOST): TMachine {
  const list = cpus();
  const model = readCpuModel(readText(join(roots.proc, 'cpuinfo'))) ?? (list[0]?.model.trim() || null);
  const runner = env.RUNNER_NAME ?? env.CI_RUNNER_DESCRIPTION ?? env.BUILDKITE_AGENT_NAME ?? hostname();
  return {
    cpu_model: model,
    cores: Math.max(1, list.length || availableParallelism()),
    memory_bytes: Math.max(1, totalmem()),
    kernel: release().slice(0, 256) || null,
    os: `${platform()}/${arch()}`,
    cgroup_cpu_cores: readCpuLimit(roots.cgroup),
    cgroup_memory_bytes: readMemoryLimit(roots.cgroup),
    runner: runner ? runner.slice(0, 256) : null,
  };
}
