import { z } from 'zod';

export const ZHostConfig = z
  .object({
    /** Data directories whose filesystems are reported (statfs). */
    disks: z.array(z.string().min(1)).max(64).default(['/']),
    /** Source of memory figures (overridable for tests). */
    meminfo_path: z.string().default('/proc/meminfo'),
  })
  .strict();
export type THostConfig = z.output<typeof ZHostConfig>;
