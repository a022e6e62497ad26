import * as z from 'zod/mini';
import { ZDurationMs } from '../../lib/units';

export const ZCockroachdbConfig = z.strictObject({
  /** Admin HTTP addresses (e.g. http://10.0.0.1:8080); the first reachable one answers for the cluster. */
  urls: z._default(z.array(z.url()), []),
  /** Extra request headers, e.g. { Cookie: "session=..." } on secure clusters. */
  headers: z._default(z.record(z.string(), z.string()), {}),
  timeout: z._default(ZDurationMs, 5000),
  /** Fallback when no URL answers: `cockroach node status --all --format=csv <args>`. */
  cli: z.prefault(
    z.strictObject({
      path: z._default(z.string(), 'cockroach'),
      args: z._default(z.array(z.string()), []),
      enabled: z._default(z.boolean(), true),
    }),
    {},
  ),
});
export type TCockroachdbConfig = z.output<typeof ZCockroachdbConfig>;
