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
  // `--github-actions` (job summary, outputs, PR comment, check run).
  GITHUB_TOKEN: opt,
  GITHUB_API_URL: opt,
  GITHUB_EVENT_NAME: opt,
  GITHUB_EVENT_PATH: opt,
  GITHUB_BASE_REF: opt,
  GITHUB_RUN_ID: opt,
  GITHUB_STEP_SUMMARY: opt,
  GITHUB_OUTPUT: opt,
  RUNNER_NAME: opt,
  // `--gitlab` (merge-request note).
  GITLAB_TOKEN: opt,
  CI_API_V4_URL: opt,
  CI_PROJECT_ID: opt,
  CI_MERGE_REQUEST_IID: opt,
  CI_MERGE_REQUEST_TARGET_BRANCH_NAME: opt,
  CI_RUNNER_DESCRIPTION: opt,
  // The runner's name recorded with each run's machine (besides RUNNER_NAME and CI_RUNNER_DESCRIPTION).
  BUILDKITE_AGENT_NAME: opt,
});
export type TEnv = z.output<typeof ZEnv>;

export function readEnv(source: NodeJS.ProcessEnv = process.env): TEnv {
  return ZEnv.parse(source);
}
