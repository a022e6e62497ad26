import { z } from 'zod';

/** CockroachDB NodeLivenessStatus, index = wire integer. */
export const LIVENESS = [
  'UNKNOWN',
  'DEAD',
  'UNAVAILABLE',
  'LIVE',
  'DECOMMISSIONING',
  'DECOMMISSIONED',
  'DRAINING',
  'STARTING',
] as const;
export const ZLiveness = z.enum(LIVENESS);
export type TLiveness = z.infer<typeof ZLiveness>;

export const SCOPES = ['ingest', 'runs:write', 'read', 'admin'] as const;
export const ZScope = z.enum(SCOPES);
export type TScope = z.infer<typeof ZScope>;

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export const ZRole = z.enum(ROLES);
export type TRole = z.infer<typeof ZRole>;

export const TOOLS = ['sysbench', 'cockroach-workload', 'pgbench', 'fio', 'wrk', 'hey'] as const;
export const ZTool = z.enum(TOOLS);
export type TTool = z.infer<typeof ZTool>;

export const RUN_STATUSES = [
  'queued',
  'claimed',
  'running',
  'succeeded',
  'failed',
  'cancelled',
  'timed_out',
] as const;
export const ZRunStatus = z.enum(RUN_STATUSES);
export type TRunStatus = z.infer<typeof ZRunStatus>;
export const FINAL_RUN_STATUSES: readonly TRunStatus[] = ['succeeded', 'failed', 'cancelled', 'timed_out'];

export const ZDirection = z.enum(['higher', 'lower']);
export type TDirection = z.infer<typeof ZDirection>;

export const ZSlug = z
  .string()
  .min(2)
  .max(48)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes');

/** Epoch milliseconds (≤ 2299-12-31, ClickHouse DateTime64's range); the agent converts CockroachDB ns. */
export const ZEpochMs = z.int().nonnegative().max(10_413_791_999_999);
