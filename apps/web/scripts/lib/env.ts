import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

const bool = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v === '1' || v === 'true'));

/** Launcher / admin CLI configuration (documented in README); the only place these scripts read process.env. */
export const WEB_NODE_ARGS_DEFAULT = '--heap-growing-percent=50 --max-semi-space-size=4';

const ZLaunchEnv = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  ORIGIN: z.string().url().optional(),
  DATA_DIR: z.string().default(path.join(REPO_ROOT, '.data')),
  DATABASE_URL: z.string().url().optional(),
  CLICKHOUSE_URL: z.string().url().optional(),
  CLICKHOUSE_CLUSTER: z.string().optional(),
  BETTER_AUTH_SECRET: z.string().min(16).optional(),
  /** 32 bytes, base64; required unless the start is embedded/dev (then generated into DATA_DIR/secrets-key). */
  SECRETS_KEY: z.string().min(1).optional(),
  SECRETS_KEY_PREVIOUS: z.string().default(''),
  PG_PORT: z.coerce.number().int().optional(),
  DEMO: bool,
  SEED: bool,
  /** Sign-up mode passed to the server; the embedded demo defaults to `open`, otherwise `invite`. */
  SIGNUP: z.enum(['open', 'invite', 'closed']).optional(),
  /** Where `vite build` wrote the server (svelte.config.js reads the same variable). */
  WEB_BUILD_DIR: z.string().default('build'),
  /**
   * Node flags for the production web server, space-separated (e.g. `--cpu-prof --cpu-prof-dir=p`). Default:
   * V8's heaps grow to 1.5× what a full collection left, not up to 4×, which keeps the peak RSS down.
   */
  WEB_NODE_ARGS: z.string().default(WEB_NODE_ARGS_DEFAULT),
  /**
   * glibc malloc arenas of the web server (V8's off-heap memory, zlib, libuv's pool; not chDB's jemalloc).
   * glibc allows 8 per core, each keeping its own freed memory, so fewer arenas hold less RSS under load.
   */
  MALLOC_ARENA_MAX: z.coerce.number().int().min(1).default(2),
  /** How hints name the admin CLI; the image sets `node scripts/bin/admin.mjs` (it has no npm or pnpm). */
  ADMIN_COMMAND: z.string().min(1).default('npm run admin --'),
  /** `production` means production defaults whatever the databases (no demo, no open sign-up). */
  NODE_ENV: z.string().optional(),
});
export type TLaunchEnv = z.infer<typeof ZLaunchEnv>;

export function readLaunchEnv(): TLaunchEnv {
  const res = ZLaunchEnv.safeParse(process.env);
  if (!res.success) {
    for (const i of res.error.issues)
      console.error(`clusterscope: invalid ${i.path.join('.')}: ${i.message}`);
    process.exit(2);
  }
  return { ...res.data, DATA_DIR: path.resolve(res.data.DATA_DIR) };
}

/** True when both stores are the embedded defaults. */
export const isEmbedded = (env: TLaunchEnv) => !env.DATABASE_URL && !env.CLICKHOUSE_URL;

/**
 * What a start turns on when not told: the embedded demo (embedded stores, not NODE_ENV=production) seeds
 * the demo org, runs the demo cluster, opens sign-up and trusts http://localhost:* origins; anything else
 * (an external database, or NODE_ENV=production) gets production defaults.
 */
export function startDefaults(env: TLaunchEnv, dev: boolean) {
  const demoStart = isEmbedded(env) && env.NODE_ENV !== 'production';
  const demo = env.DEMO ?? demoStart;
  return {
    demo,
    seed: env.SEED ?? demoStart,
    signup: env.SIGNUP ?? (demoStart ? 'open' : 'invite'),
    localOrigins: demoStart || dev,
  } as const;
}

/** An integer knob of a bench script (unset or empty = `def`); a bad value exits 2 naming the variable. */
export function intEnv(name: string, def: number, min = 1): number {
  const raw = process.env[name];
  const v = raw === undefined || raw === '' ? def : Number(raw);
  if (!Number.isInteger(v) || v < min) {
    const script = path.basename(process.argv[1] ?? 'bench', '.ts');
    console.error(`${script}: ${name} must be an integer ≥ ${min}, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return v;
}
