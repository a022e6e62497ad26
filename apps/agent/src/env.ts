/** The agent/CLI env module: the only place that reads process.env. */
import * as z from 'zod/mini';

const opt = z.pipe(
  z.optional(z.string()),
  z.transform((v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim())),
);

export const ZEnv = z.object({
  CLUSTERSCOPE_CONFIG: opt,
  CLUSTERSCOPE_URL: opt,
  CLUSTERSCOPE_TOKEN: opt,
  CLUSTERSCOPE_CLUSTER: opt,
  CLUSTERSCOPE_HOST: opt,
  CLUSTERSCOPE_NODE_ID: opt,
  CLUSTERSCOPE_INTERVAL: opt,
  CLUSTERSCOPE_OUTBOX_DIR: opt,
  CLUSTERSCOPE_OUTBOX_MAX_BYTES: opt,
  CLUSTERSCOPE_METRICS_LISTEN: opt,
  CLUSTERSCOPE_LOG_LEVEL: opt,
  PATH: opt,
  // CI git metadata (GitHub Actions, GitLab CI) for `clusterscope run/submit`.
  GITHUB_SERVER_URL: opt,
  GITHUB_REPOSITORY: opt,
  GITHUB_REF_NAME: opt,
  GITHUB_HEAD_REF: opt,
  GITHUB_SHA: opt,
  CI_PROJECT_URL: opt,
  CI_COMMIT_REF_NAME: opt,
  CI_COMMIT_SHA: opt,
});
export type TEnv = z.output<typeof ZEnv>;

export function readEnv(source: NodeJS.ProcessEnv = process.env): TEnv {
  return ZEnv.parse(source);
}
