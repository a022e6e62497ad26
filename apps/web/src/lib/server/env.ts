import path from 'node:path';
import { z } from 'zod';
import { parseAllowList } from '@clusterscope/services/core';

const bool = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v === '1' || v === 'true'));

/** The web runtime's configuration; the only place process.env is read. The launcher fills these in. */
const ZEnv = z.object({
  DATABASE_URL: z.string().url({ message: 'DATABASE_URL must be a postgresql:// URL' }),
  CLICKHOUSE_URL: z.string().url().optional(),
  CLICKHOUSE_PATH: z.string().default('.data/clickhouse'),
  CLICKHOUSE_CLUSTER: z.string().optional(),
  /** Numbered SQL files; the server runs from apps/web (or its build), so resolve from the repo. */
  CLICKHOUSE_MIGRATIONS_DIR: z.string().default(path.resolve('../../packages/tsdb/migrations')),
  /** How pages name the admin CLI; the image sets `node scripts/bin/admin.mjs` (it has no npm or pnpm). */
  ADMIN_COMMAND: z.string().min(1).default('npm run admin --'),
  /** The CLI bundle served at /cli/clusterscope.mjs (built by @clusterscope/agent). */
  CLI_PATH: z.string().default(path.resolve('../agent/dist/clusterscope.js')),
  /** No default: the launcher generates one into .data/ for embedded/dev starts; production must set it. */
  BETTER_AUTH_SECRET: z
    .string({ message: 'BETTER_AUTH_SECRET is required (32+ random bytes, e.g. `openssl rand -base64 32`)' })
    .min(16, { message: 'BETTER_AUTH_SECRET must be at least 16 characters' }),
  /** 32 bytes, base64: seals workload credentials at rest (required in production). */
  SECRETS_KEY: z.string().min(1).optional(),
  /** Older keys, comma separated: still open secrets until `admin secrets rotate` re-seals them. */
  SECRETS_KEY_PREVIOUS: z.string().default(''),
  ORIGIN: z.string().url().default('http://127.0.0.1:3000'),
  /** Proxies in front of the server; X-Forwarded-For is read only when this is > 0 (see client-address.ts). */
  TRUST_PROXY: z.coerce.number().int().min(0).max(16).default(0),
  /** Set by the launcher for embedded/dev starts: trust http://localhost:* and http://127.0.0.1:* origins. */
  LOCAL_ORIGINS: bool,
  DEMO: bool,
  /** Who may create an account: open, invite (pending invitation for the email) or closed (admin CLI only). */
  SIGNUP: z.enum(['open', 'invite', 'closed']).default('invite'),
  /** SMTP for verification and invitation mail, e.g. smtp://user:pass@host:587; unset = links shown in the UI. */
  SMTP_URL: z.string().url().optional(),
  SMTP_FROM: z.string().optional(),
  /**
   * Destinations that are not public addresses but which notifications, push and SMTP may reach anyway:
   * comma-separated CIDRs or addresses (e.g. 127.0.0.1/32,10.1.0.0/16). Cloud metadata stays refused.
   */
  OUTBOUND_ALLOW: z
    .string()
    .default('')
    .refine(
      (s) => {
        try {
          parseAllowList(s);
          return true;
        } catch {
          return false;
        }
      },
      { message: 'comma-separated IP addresses or CIDR ranges, e.g. 127.0.0.1/32,10.1.0.0/16' },
    ),
  INGEST_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  INGEST_RATE_PER_S: z.coerce.number().positive().default(50),
  /**
   * Longest wait (ms) for concurrent ingest batches to coalesce into one ClickHouse insert: every insert
   * writes one part per table, so small inserts cost several times more per row than large ones.
   */
  INGEST_FLUSH_MS: z.coerce.number().int().min(0).max(10_000).default(20),
  /**
   * Least time (ms) between the starts of two ingest inserts while many agents post at once (the insert
   * before carried 8+ batches): each insert makes a part per table and materialized view, which ClickHouse
   * merges afterwards (its guidance: about one insert per second). A batch of samples older than twice
   * this (an agent catching up) is not held back. 0 = insert as soon as the last ended.
   */
  INGEST_ROUND_MS: z.coerce.number().int().min(0).max(10_000).default(1000),
  /** Ingest worker threads (parse, validate, encode); default one per core but one (at least 1, at most 4); 0 = none. */
  INGEST_WORKERS: z.coerce.number().int().min(0).max(64).optional(),
  /** Most time (ms) one posted tool output may take to parse on the parse worker; past it the request gets a 422. */
  PARSE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  /** How often (ms) glibc's freed heap memory goes back to the OS (malloc-trim.ts; 0 = never). */
  MALLOC_TRIM_MS: z.coerce.number().int().min(0).max(3_600_000).default(2000),
  /** Memory for settled chart series kept between reads (MB; 0 = every chart read goes to ClickHouse). */
  SERIES_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(64),
  /** Open live (SSE) streams allowed per user and per organization, per web instance; 429 past them. */
  LIVE_MAX_PER_USER: z.coerce.number().int().positive().default(10),
  LIVE_MAX_PER_ORG: z.coerce.number().int().positive().default(500),
  /** On-call alert evaluation period in seconds (0 = no evaluator in this process). */
  ALERT_EVAL_INTERVAL_S: z.coerce.number().min(0).max(3600).default(15),
  /** Web Push VAPID keys (URL-safe base64); unset = generated once into DATA_DIR/vapid.json. */
  VAPID_PUBLIC_KEY: z.string().min(1).optional(),
  VAPID_PRIVATE_KEY: z.string().min(1).optional(),
  /** mailto: or https: contact sent to push services. */
  VAPID_SUBJECT: z.string().min(1).optional(),
  /** The launcher's data directory (VAPID keys live there); default: the parent of CLICKHOUSE_PATH. */
  DATA_DIR: z.string().optional(),
  /** Send a Server-Timing header (PostgreSQL and ClickHouse calls and time, total) on every response. */
  SERVER_TIMING: bool,
  APP_VERSION: z.string().default('0.1.0'),
  NODE_ENV: z.string().default('production'),
});
export type TEnv = z.infer<typeof ZEnv>;

let cached: TEnv | undefined;

export function getEnv(): TEnv {
  if (cached) return cached;
  const res = ZEnv.safeParse(process.env);
  if (!res.success) {
    const lines = res.error.issues.map((i) =>
      i.path[0] === 'BETTER_AUTH_SECRET' ? i.message : `${i.path.join('.')}: ${i.message}`,
    );
    throw new Error(`invalid configuration: ${lines.join('; ')}`);
  }
  if (res.data.NODE_ENV === 'production' && !res.data.SECRETS_KEY)
    throw new Error(
      'SECRETS_KEY is required in production (32 random bytes, base64: `openssl rand -base64 32`)',
    );
  cached = res.data;
  return cached;
}
