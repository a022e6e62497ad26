import { z } from 'zod';

const ZTarget = z.union([
  /** A cgroup path relative to the hierarchy root, e.g. /system.slice/postgresql.service. */
  z.object({ path: z.string().startsWith('/') }).strict(),
  /** A systemd unit, looked up under /system.slice (then anywhere, depth ≤ 4). */
  z.object({ unit: z.string().min(1) }).strict(),
  /** Every direct child of a cgroup path. */
  z.object({ children_of: z.string().startsWith('/') }).strict(),
]);
export type TCgroupTarget = z.output<typeof ZTarget>;

export const ZCgroupConfig = z
  .object({
    /** Mount point of the hierarchy (v2) or of the per-controller v1 mounts. */
    root: z.string().default('/sys/fs/cgroup'),
    /** auto: v2 when unified, v1 counters (+ v2 PSI) when hybrid, v1 when legacy. */
    version: z.enum(['auto', '1', '2']).default('auto'),
    targets: z.array(ZTarget).default([{ children_of: '/system.slice' }]),
    /** Where major:minor → device names are resolved; false keeps "8:0". */
    devices_dir: z.union([z.string(), z.literal(false)]).default('/sys/dev/block'),
  })
  .strict();
export type TCgroupConfig = z.output<typeof ZCgroupConfig>;
