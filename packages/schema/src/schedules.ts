import { z } from 'zod';

/** A cron schedule of a workload on one or more clusters (standard 5-field cron, read in `timezone`). */
export const ZScheduleInput = z.object({
  workloadId: z.string().min(1).max(128),
  cron: z.string().trim().min(9).max(120),
  /** IANA time zone, e.g. Europe/Berlin. */
  timezone: z.string().min(1).max(64).default('UTC'),
  /** Cluster ids or names. */
  clusters: z.array(z.string().min(1).max(128)).min(1).max(20),
  enabled: z.boolean().default(true),
});
export type TScheduleInput = z.input<typeof ZScheduleInput>;

export const ZScheduleSlot = z.object({
  clusterId: z.string(),
  slot: z.date(),
  runId: z.string().nullable(),
  /** Why no run started for this slot (previous run still queued/running, cluster unhealthy, ...). */
  skipped: z.string().nullable(),
});
export type TScheduleSlot = z.infer<typeof ZScheduleSlot>;

export const ZSchedule = z.object({
  id: z.string(),
  workloadId: z.string(),
  cron: z.string(),
  timezone: z.string(),
  clusters: z.array(z.object({ id: z.string(), name: z.string() })),
  enabled: z.boolean(),
  /** The next slots, soonest first. */
  nextRuns: z.array(z.date()),
  /** The latest fired slots, newest first. */
  recent: z.array(ZScheduleSlot),
  createdAt: z.date(),
});
export type TSchedule = z.infer<typeof ZSchedule>;
