import { z } from 'zod';
import { ZDurationMs } from '../../lib/units';

export const ZCockroachdbConfig = z
  .object({
    /** Admin HTTP addresses (e.g. http://10.0.0.1:8080); the first reachable one answers for the cluster. */
    urls: z.array(z.url()).default([]),
    /** Extra request headers, e.g. { Cookie: "session=..." } on secure clusters. */
    headers: z.record(z.string(), z.string()).default({}),
    timeout: ZDurationMs.default(5000),
    /** Fallback when no URL answers: `cockroach node status --all --format=csv <args>`. */
    cli: z
      .object({
        path: z.string().default('cockroach'),
        args: z.array(z.string()).default([]),
        enabled: z.boolean().default(true),
      })
      .default({ path: 'cockroach', args: [], enabled: true }),
  })
  .strict();
export type TCockroachdbConfig = z.output<typeof ZCockroachdbConfig>;
