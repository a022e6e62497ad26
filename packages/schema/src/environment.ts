import { z } from 'zod';
import { ZReadWindow } from './common';
import { ZNodeEventView } from './views';

const point = z.tuple([z.number(), z.number().nullable()]);

/** A node that was not LIVE during a window. */
export const ZEnvironmentNode = z.object({
  node_id: z.number(),
  samples: z.number(),
  /** Samples (raw) or sample count in buckets (rollups) whose liveness was not LIVE. */
  not_live_samples: z.number(),
  /** Non-LIVE states seen (bucket-final states for rollups). */
  states: z.array(z.string()),
  max_ranges_underreplicated: z.number(),
  max_ranges_unavailable: z.number(),
});
export type TEnvironmentNode = z.infer<typeof ZEnvironmentNode>;

/** A cgroup that was throttled or near its memory limit during a window. */
export const ZEnvironmentCgroup = z.object({
  host: z.string(),
  cgroup: z.string(),
  /** Throttled periods / periods over the window; null without CFS periods. */
  throttled_ratio: z.number().nullable(),
  max_mem_current: z.number(),
  mem_max: z.number().nullable(),
  /** max_mem_current / mem_max; null when unlimited. */
  mem_ratio: z.number().nullable(),
});
export type TEnvironmentCgroup = z.infer<typeof ZEnvironmentCgroup>;

/** Cluster health over a window (tsdb `getEnvironment`). */
export const ZEnvironment = ZReadWindow.extend({
  /** False when the window saw trouble; `reasons` says which. */
  healthy: z.boolean(),
  reasons: z.array(z.string()),
  /** Nodes seen in the window (false when there was no node data at all). */
  has_node_data: z.boolean(),
  nodes_not_live: z.array(ZEnvironmentNode),
  max_ranges_underreplicated: z.number(),
  max_ranges_unavailable: z.number(),
  max_throttled_ratio: z.number().nullable(),
  max_mem_ratio: z.number().nullable(),
  cgroups_throttled: z.array(ZEnvironmentCgroup),
  cgroups_near_memory_limit: z.array(ZEnvironmentCgroup),
});
export type TEnvironment = z.infer<typeof ZEnvironment>;

/** The cluster's SQL statements/s and service latency during a benchmark run. */
export const ZRunDbMetrics = z.object({
  /** Statements (select+insert+update+delete) per second over the whole window; null without data. */
  statements_per_s: z.number().nullable(),
  /** Service latency p99 / p50 over the whole window, ms. */
  p99_ms: z.number().nullable(),
  p50_ms: z.number().nullable(),
  step_ms: z.number(),
  /** Per step: statements/s and p99 (ms), over time. */
  statements: z.array(point),
  p99: z.array(point),
});
export type TRunDbMetrics = z.infer<typeof ZRunDbMetrics>;

/** "Environment during the run" on the run page. */
export const ZRunEnvironment = z.object({
  /** null: the run has no cluster, or the cluster sent no data in the run window. */
  healthy: z.boolean().nullable(),
  reasons: z.array(z.string()),
  env: ZEnvironment.nullable(),
  /** Liveness changes seen in the window. */
  events: z.array(ZNodeEventView),
  /** What the database itself reported; null without a cluster. */
  db: ZRunDbMetrics.nullable(),
});
export type TRunEnvironment = z.infer<typeof ZRunEnvironment>;
