import { z } from 'zod';
import { ZNodeEventView } from './views';

const point = z.tuple([z.number(), z.number().nullable()]);

/** A node that was not LIVE during a window. */
export const ZEnvironmentNode = z.object({
  node_id: z.number(),
  samples: z.number(),
  not_live_samples: z.number(),
  states: z.array(z.string()),
  max_ranges_underreplicated: z.number(),
  max_ranges_unavailable: z.number(),
});

/** A cgroup that was throttled or near its memory limit during a window. */
export const ZEnvironmentCgroup = z.object({
  host: z.string(),
  cgroup: z.string(),
  throttled_ratio: z.number().nullable(),
  max_mem_current: z.number(),
  mem_max: z.number().nullable(),
  mem_ratio: z.number().nullable(),
});

/** Cluster health over a window (tsdb `getEnvironment`). */
export const ZEnvironment = z.object({
  from: z.number(),
  to: z.number(),
  resolution: z.enum(['raw', '1m', '1h']),
  healthy: z.boolean(),
  reasons: z.array(z.string()),
  has_node_data: z.boolean(),
  nodes_not_live: z.array(ZEnvironmentNode),
  max_ranges_underreplicated: z.number(),
  max_ranges_unavailable: z.number(),
  max_throttled_ratio: z.number().nullable(),
  max_mem_ratio: z.number().nullable(),
  cgroups_throttled: z.array(ZEnvironmentCgroup),
  cgroups_near_memory_limit: z.array(ZEnvironmentCgroup),
});

/** "Environment during the run" on the run page. `healthy` null: no cluster, or no data in the window. */
export const ZRunEnvironment = z.object({
  healthy: z.boolean().nullable(),
  reasons: z.array(z.string()),
  env: ZEnvironment.nullable(),
  events: z.array(ZNodeEventView),
  db: z
    .object({
      statements_per_s: z.number().nullable(),
      p99_ms: z.number().nullable(),
      p50_ms: z.number().nullable(),
      step_ms: z.number(),
      statements: z.array(point),
      p99: z.array(point),
    })
    .nullable(),
});
export type TRunEnvironmentView = z.infer<typeof ZRunEnvironment>;
