import * as z from 'zod/mini';

export const ZHostConfig = z.strictObject({
  /** Data directories whose filesystems are reported (statfs). */
  disks: z._default(z.array(z.string().check(z.minLength(1))).check(z.maxLength(64)), ['/']),
  /** Source of memory figures (overridable for tests). */
  meminfo_path: z._default(z.string(), '/proc/meminfo'),
});
export type THostConfig = z.output<typeof ZHostConfig>;
