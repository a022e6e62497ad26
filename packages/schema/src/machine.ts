import { z } from 'zod';

/**
 * The machine a run ran on, as the CLI and the agent read it (/proc/cpuinfo, os.*, /sys/fs/cgroup, the CI's
 * runner variables). Numbers a host does not give are null.
 */
export const ZMachine = z.object({
  cpu_model: z.string().trim().max(256).nullable(),
  /** Logical CPUs the host has. */
  cores: z.number().int().positive().max(65_536),
  memory_bytes: z
    .number()
    .int()
    .positive()
    .max(2 ** 53),
  /** `uname -r`. */
  kernel: z.string().max(256).nullable(),
  /** `linux/x64`, `darwin/arm64`. */
  os: z.string().max(64).nullable(),
  /** The run's cgroup limits (v2 `cpu.max`/`memory.max`, or v1 CFS quota and memory limit); null: none. */
  cgroup_cpu_cores: z.number().positive().max(65_536).nullable(),
  cgroup_memory_bytes: z
    .number()
    .int()
    .positive()
    .max(2 ** 53)
    .nullable(),
  /** The CI runner (RUNNER_NAME, CI_RUNNER_DESCRIPTION, BUILDKITE_AGENT_NAME, NODE_NAME) or the host name. */
  runner: z.string().max(256).nullable(),
});
export type TMachine = z.infer<typeof ZMachine>;

const GIB = 1024 ** 3;

/**
 * The kind of machine: CPU model, the cores and memory the run could use (the cgroup limits where lower),
 * memory rounded to whole GiB since hosts of one type report slightly different totals. Runs on one kind
 * are comparable; the runner's name and the kernel are not part of it (one pool of runners is one kind).
 */
export function getMachineKind(m: TMachine): string {
  const cores = m.cgroup_cpu_cores !== null ? Math.min(m.cores, m.cgroup_cpu_cores) : m.cores;
  const bytes =
    m.cgroup_memory_bytes !== null ? Math.min(m.memory_bytes, m.cgroup_memory_bytes) : m.memory_bytes;
  const cpu = (m.cpu_model ?? 'unknown CPU').replace(/\s+/g, ' ');
  return `${cpu}, ${Number(cores.toFixed(2))} cores, ${Math.max(1, Math.round(bytes / GIB))} GiB`;
}

/**
 * The warning every report and the compare page show when a run is compared with runs of another kind
 * of machine (or of none recorded), or null when all ran on its kind.
 */
export function describeMachineMismatch(
  kind: string | null,
  baselineKinds: readonly (string | null)[],
  fellBack = false,
): string | null {
  if (baselineKinds.length === 0) return null;
  const others = [
    ...new Set(baselineKinds.filter((k) => k !== kind).map((k) => k ?? 'an unrecorded machine')),
  ];
  if (others.length === 0) return null;
  const here = kind ?? 'an unrecorded machine';
  return (
    `compared across machines: this run ran on ${here}, the baseline on ${others.slice(0, 3).join('; ')}` +
    (fellBack ? ' (no baseline runs on this kind of machine yet)' : '') +
    '; differences may be the machine, not the change'
  );
}
