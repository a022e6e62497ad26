import * as z from 'zod/mini';
import { ZDurationMs } from '../../lib/units';

const ZName = z.string().check(z.regex(/^[a-zA-Z_:*?][a-zA-Z0-9_:*?]*$/, 'must be a metric name or glob'));
const ZLabels = z.record(
  z.string().check(z.regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'must be a label name')),
  z.string().check(z.maxLength(256)),
);

export const ZTls = z.strictObject({
  ca_file: z.optional(z.string()),
  cert_file: z.optional(z.string()),
  key_file: z.optional(z.string()),
  server_name: z.optional(z.string()),
  insecure_skip_verify: z._default(z.boolean(), false),
});
export type TTls = z.output<typeof ZTls>;

export const ZAuth = z.strictObject({
  bearer_token: z.optional(z.string()),
  bearer_token_file: z.optional(z.string()),
  basic_auth: z.optional(
    z.strictObject({
      username: z.string(),
      password: z.optional(z.string()),
      password_file: z.optional(z.string()),
    }),
  ),
});

export const ZTarget = z.extend(ZAuth, {
  url: z.url({ protocol: /^https?$/ }),
  /** Defaults to the agent's interval; a longer one skips collections in between. */
  interval: z.optional(ZDurationMs),
  timeout: z.optional(ZDurationMs),
  tls: z.optional(ZTls),
  /** Added to every series of this target (a label the target also sets is overwritten). */
  labels: z._default(ZLabels, {}),
  headers: z._default(z.record(z.string(), z.string()), {}),
});
export type TTarget = z.output<typeof ZTarget>;

export const ZPrometheusConfig = z.strictObject({
  /** Scrape each `inputs.cockroachdb.urls` entry's `/_status/vars` (with its headers). */
  cockroachdb: z._default(z.boolean(), true),
  targets: z._default(z.array(ZTarget), []),
  timeout: z._default(ZDurationMs, 5000),
  tls: z.optional(ZTls),
  /** Metric families kept besides the built-in allowlist (globs: `*`, `?`). */
  include: z._default(z.array(ZName), []),
  /** Families dropped even when allowed (globs). */
  exclude: z._default(z.array(ZName), []),
  /** false: keep only `include` (the built-in allowlist is off). */
  default_allowlist: z._default(z.boolean(), true),
  /** Most distinct series this agent (its cluster) sends; new series past it are dropped and counted. */
  max_series: z._default(z.number().check(z.int(), z.positive()), 10_000),
  /** Static labels on every series of every target. */
  labels: z._default(ZLabels, {}),
});
export type TPrometheusConfig = z.output<typeof ZPrometheusConfig>;
