import * as z from 'zod/mini';

const ZTarget = z.union([
  /** A cgroup path relative to the hierarchy root, e.g. /system.slice/postgresql.service. */
  z.strictObject({ path: z.string().check(z.startsWith('/')) }),
  /** A systemd unit, looked up under /system.slice (then anywhere, depth ≤ 4). */
  z.strictObject({ unit: z.string().check(z.minLength(1)) }),
  /** Every direct child of a cgroup path. */
  z.strictObject({ children_of: z.string().check(z.startsWith('/')) }),
]);
export type TCgroupTarget = z.output<typeof ZTarget>;

export const ZCgroupConfig = z.strictObject({
  /** Mount point of the hierarchy (v2) or of the per-controller v1 mounts. */
  root: z._default(z.string(), '/sys/fs/cgroup'),
  /** auto: v2 when unified, v1 counters (+ v2 PSI) when hybrid, v1 when legacy. */
  version: z._default(z.enum(['auto', '1', '2']), 'auto'),
  targets: z._default(z.array(ZTarget), [{ children_of: '/system.slice' }]),
  /** Where major:minor → device names are resolved; false keeps "8:0". */
  devices_dir: z._default(z.union([z.string(), z.literal(false)]), '/sys/dev/block'),
});
export type TCgroupConfig = z.output<typeof ZCgroupConfig>;
