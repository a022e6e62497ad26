/** Agent configuration: a YAML/TOML file merged with CLUSTERSCOPE_* env overrides, zod-parsed. */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod/mini';
import type { TEnv } from './env';
import { INPUTS } from './inputs/registry';
import { ZDurationMs, ZSizeBytes } from './lib/units';
import { resolveJobsConfig, ZJobsConfig } from './jobs/config';

export const DEFAULT_CONFIG_PATH = '/etc/clusterscope/agent.yaml';

const inputsShape = Object.fromEntries(
  INPUTS.map((def) => [def.name, z.optional(z.union([z.literal(false), def.config]))]),
) as {
  [K in (typeof INPUTS)[number] as K['name']]: z.ZodMiniOptional<
    z.ZodMiniUnion<[z.ZodMiniLiteral<false>, K['config']]>
  >;
};

const str = (min: number, max: number) => z.string().check(z.minLength(min), z.maxLength(max));

const ZAgentConfigFields = z.strictObject({
  url: z.url({ message: 'must be the Clusterscope base URL, e.g. https://clusterscope.example.com' }),
  token: z
    .string({ message: 'is required (an ingest-scope API token)' })
    .check(z.minLength(1, 'is required')),
  cluster: z.optional(str(1, 64)),
  host: z._default(str(1, 256), os.hostname()),
  node_id: z._default(z.nullable(z.coerce.number().check(z.int(), z.positive())), null),
  interval: z._default(z.pipe(ZDurationMs, z.number().check(z.gte(100, 'must be at least 100ms'))), 10_000),
  log_level: z._default(z.enum(['debug', 'info', 'warn', 'error']), 'info'),
  outbox: z.prefault(
    z.strictObject({
      dir: z._default(z.string().check(z.minLength(1)), '/var/lib/clusterscope-agent/outbox'),
      max_bytes: z._default(
        z.pipe(ZSizeBytes, z.number().check(z.gte(1024 * 1024, 'must be at least 1MiB'))),
        256 * 1024 * 1024,
      ),
      segment_bytes: z._default(ZSizeBytes, 8 * 1024 * 1024),
    }),
    {},
  ),
  delivery: z.prefault(
    z.strictObject({
      timeout: z._default(ZDurationMs, 30_000),
      backoff_initial: z._default(ZDurationMs, 1_000),
      backoff_max: z._default(ZDurationMs, 300_000),
    }),
    {},
  ),
  /** Prometheus endpoint with the agent's own counters; false disables it. */
  metrics: z.prefault(
    z.strictObject({
      listen: z._default(
        z.union([z.literal(false), z.string().check(z.regex(/^[^\s:]*:\d+$/, 'must be host:port'))]),
        '127.0.0.1:9273',
      ),
    }),
    {},
  ),
  inputs: z.prefault(z.strictObject(inputsShape), {}),
  /** Benchmark jobs queued from the dashboard (off by default). */
  jobs: z.prefault(ZJobsConfig, {}),
});

export const ZAgentConfig = z.pipe(
  ZAgentConfigFields,
  z.transform((c) => ({ ...c, jobs: resolveJobsConfig(c) })),
);
export type TAgentConfig = z.output<typeof ZAgentConfig>;

export class ConfigError extends Error {}

/** Parse a config file's text by extension (.toml → TOML, else YAML). */
export function parseConfigText(text: string, path: string): Record<string, unknown> {
  let raw: unknown;
  try {
    raw = path.endsWith('.toml') ? parseToml(text) : parseYaml(text);
  } catch (e) {
    throw new ConfigError(`${path}: ${(e as Error).message}`);
  }
  if (raw === null || raw === undefined) return {};
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new ConfigError(`${path}: top level must be a mapping`);
  return raw as Record<string, unknown>;
}

function applyEnv(raw: Record<string, unknown>, env: TEnv): Record<string, unknown> {
  const out: Record<string, unknown> = { ...raw };
  const sub = (key: string) => ({ ...((out[key] as Record<string, unknown> | undefined) ?? {}) });
  if (env.CLUSTERSCOPE_URL) out.url = env.CLUSTERSCOPE_URL;
  if (env.CLUSTERSCOPE_TOKEN) out.token = env.CLUSTERSCOPE_TOKEN;
  if (env.CLUSTERSCOPE_CLUSTER) out.cluster = env.CLUSTERSCOPE_CLUSTER;
  if (env.CLUSTERSCOPE_HOST) out.host = env.CLUSTERSCOPE_HOST;
  if (env.CLUSTERSCOPE_NODE_ID) out.node_id = env.CLUSTERSCOPE_NODE_ID;
  if (env.CLUSTERSCOPE_INTERVAL) out.interval = env.CLUSTERSCOPE_INTERVAL;
  if (env.CLUSTERSCOPE_LOG_LEVEL) out.log_level = env.CLUSTERSCOPE_LOG_LEVEL;
  if (env.CLUSTERSCOPE_OUTBOX_DIR || env.CLUSTERSCOPE_OUTBOX_MAX_BYTES) {
    const ob = sub('outbox');
    if (env.CLUSTERSCOPE_OUTBOX_DIR) ob.dir = env.CLUSTERSCOPE_OUTBOX_DIR;
    if (env.CLUSTERSCOPE_OUTBOX_MAX_BYTES) ob.max_bytes = env.CLUSTERSCOPE_OUTBOX_MAX_BYTES;
    out.outbox = ob;
  }
  if (env.CLUSTERSCOPE_METRICS_LISTEN) {
    const m = sub('metrics');
    m.listen = ['off', 'false', 'none'].includes(env.CLUSTERSCOPE_METRICS_LISTEN)
      ? false
      : env.CLUSTERSCOPE_METRICS_LISTEN;
    out.metrics = m;
  }
  return out;
}

type TIssue = z.core.$ZodIssue;

/**
 * One line per problem, each naming the key (`inputs.cgroup.root`). The bundled agent carries no zod locale
 * (its messages would all read "Invalid input"), so the common issues are worded here from their codes; a
 * union (`false` or an input's settings) reports the branch that is not `false`.
 */
function describeIssues(issues: readonly TIssue[], base: PropertyKey[], raw: unknown): string[] {
  return issues.flatMap((i): string[] => {
    const path = [...base, ...i.path];
    const at = (p: PropertyKey[]) => (p.length ? p.map(String).join('.') : '(top level)');
    switch (i.code) {
      case 'unrecognized_keys':
        return i.keys.map((k) => `${at([...path, k])}: unknown key`);
      case 'invalid_union': {
        const branches = i.errors.filter((e) => !e.every((x) => x.code === 'invalid_value'));
        if (branches.length === 1) return describeIssues(branches[0], path, raw);
        return [`${at(path)}: ${i.message}`];
      }
      case 'invalid_type':
        return [
          `${at(path)}: ${valueAt(raw, path) === undefined ? 'is required' : `must be a ${i.expected}`}`,
        ];
      case 'invalid_value':
        return [`${at(path)}: must be one of ${i.values.map((v) => JSON.stringify(v)).join(', ')}`];
      default:
        return [`${at(path)}: ${i.message}`];
    }
  });
}

const valueAt = (raw: unknown, path: PropertyKey[]): unknown =>
  path.reduce<unknown>(
    (v, k) => (v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    raw,
  );

/** `raw` is the parsed input (to tell a missing key from a wrong value). */
export function formatZodError(err: z.core.$ZodError, source: string, raw?: unknown): string {
  return describeIssues(err.issues, [], raw)
    .map((line) => `${source}: ${line}`)
    .join('\n');
}

/** Load, merge and validate. `path` undefined → CLUSTERSCOPE_CONFIG, then the default path if it exists. */
export function loadConfig(env: TEnv, path?: string): { config: TAgentConfig; path: string | undefined } {
  const file =
    path ?? env.CLUSTERSCOPE_CONFIG ?? (existsSync(DEFAULT_CONFIG_PATH) ? DEFAULT_CONFIG_PATH : undefined);
  let raw: Record<string, unknown> = {};
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new ConfigError(`cannot read config file ${file}: ${(e as Error).message}`);
    }
    raw = parseConfigText(text, file);
  }
  const merged = applyEnv(raw, env);
  const res = ZAgentConfig.safeParse(merged);
  if (!res.success) throw new ConfigError(formatZodError(res.error, file ?? 'config (env only)', merged));
  return { config: res.data, path: file };
}

/** The effective config with the token redacted (for --print-config and logs). */
export function redactConfig(cfg: TAgentConfig): Record<string, unknown> {
  return { ...cfg, token: cfg.token ? '(redacted)' : '' };
}
