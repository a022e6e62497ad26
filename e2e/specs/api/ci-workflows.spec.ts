/**
 * The example CI files in docs/ci/, run as a runner runs them: each `run:` step in bash, downloading the
 * CLI from the app with curl, against stand-ins of the GitHub and GitLab APIs on loopback.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { BASE_URL, DATA_DIR } from '../../playwright.config';
import { adminTokenFor, buildAgentDist, createCluster } from '../../fixtures/agent';
import { runGitHubJob, runGitLabJob } from '../../fixtures/ci-runner';
import { startForge, tempDir } from '@clusterscope/agent/testing';
import { sysbenchCpuAndTenfold } from '../../fixtures/sysbench';

const DOCS = path.resolve(import.meta.dirname, '../../../docs/ci');
const auth = (t: string) => ({ authorization: `Bearer ${t}` });

let admin: string;
let ciToken: string;
let forge: Awaited<ReturnType<typeof startForge>>;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ request }) => {
  admin = adminTokenFor(DATA_DIR, 'e2e-ci-workflows');
  // The examples name cluster "ci" and workload "cpu".
  await createCluster(BASE_URL, admin, 'ci');
  const res = await request.post('/api/trpc/tokens.create', {
    headers: auth(admin),
    data: { name: 'ci-workflows', scopes: ['runs:write', 'read'] },
  });
  expect(res.status(), await res.text()).toBe(200);
  ciToken = (await res.json()).result.data.token;
  forge = await startForge();

  // main's baseline: a recorded sysbench cpu run made 10× faster, so the examples' real run regresses.
  const { fast } = sysbenchCpuAndTenfold(10);
  const dir = tempDir('cs-e2e-baseline');
  fs.writeFileSync(path.join(dir, 'fast.txt'), fast);
  const { cliJs } = buildAgentDist();
  execFileSync(
    process.execPath,
    [cliJs, 'submit', '--cluster', 'ci', '--workload', 'cpu', '--branch', 'main', path.join(dir, 'fast.txt')],
    {
      env: { PATH: process.env.PATH, CLUSTERSCOPE_URL: BASE_URL, CLUSTERSCOPE_TOKEN: ciToken },
      stdio: 'pipe',
    },
  );
});

test.afterAll(() => forge?.close());

test('the CLI is one file at /cli/clusterscope.mjs with its version in a header', async ({ request }) => {
  const res = await request.get('/cli/clusterscope.mjs');
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toMatch(/^text\/javascript/);
  expect(res.headers()['x-clusterscope-cli-version']).toMatch(/^\d+\.\d+\.\d+/);
  expect((await res.text()).split('\n', 2)[1]).toBe(
    `// clusterscope ${res.headers()['x-clusterscope-cli-version']}`,
  );
});

/** GitHub Actions' own variables for a pull_request job of PR `pr` in acme/db. */
function actionsEnv(token: string | null, over: Record<string, string> = {}) {
  return {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_API_URL: `${forge.url}/gh`,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: 'acme/db',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_SHA: '0000000000000000000000000000000000000001',
    GITHUB_REF_NAME: '21/merge',
    GITHUB_HEAD_REF: 'feature/faster',
    GITHUB_BASE_REF: 'main',
    GITHUB_RUN_ID: '9001',
    RUNNER_NAME: 'GitHub Actions 2',
    ...(token ? { GITHUB_TOKEN: token } : {}),
    ...over,
  };
}

const prEvent = (pr: number, sha: string) => ({ pull_request: { number: pr, head: { sha } } });

test('github-actions.yml: a regression fails the step, posts one PR comment (edited on the next run) and a failed check', async () => {
  const workdir = tempDir('cs-e2e-gh');
  const job = () =>
    runGitHubJob(path.join(DOCS, 'github-actions.yml'), 'benchmark', {
      workdir,
      env: actionsEnv('gh-write'),
      vars: { CLUSTERSCOPE_URL: BASE_URL },
      secrets: { CLUSTERSCOPE_TOKEN: ciToken },
      token: 'gh-write',
      event: prEvent(21, 'abcdef0000000000000000000000000000000021'),
    });
  const first = await job();
  const bench = first.find((s) => s.name === 'Benchmark')!;
  expect(bench.code, bench.stderr).toBe(3);
  expect(bench.stderr).toMatch(/regression vs main \(last (run|\d runs)\)/);
  expect(bench.stderr).toMatch(new RegExp(`^run: +${BASE_URL}/[\\w-]+/runs/\\w+$`, 'm'));
  expect(bench.outputs).toMatchObject({
    verdict: 'regression',
    regressions: expect.stringContaining('events_per_s'),
  });
  // `if: always()` still runs after the failed step and reads the outputs.
  expect(first.find((s) => s.name === 'Show the verdict')!.stdout).toMatch(/^verdict regression, run http/);
  expect(fs.readFileSync(path.join(workdir, 'clusterscope-junit.xml'), 'utf8')).toMatch(
    /<testcase classname="clusterscope\.ci\.cpu" name="events_per_s"[^>]*>\s*<failure/,
  );
  const summary = fs.readFileSync(path.join(workdir, 'step-summary.md'), 'utf8');
  expect(summary).toMatch(/^### 🔴 Clusterscope: ci\/cpu — regression/);
  expect(summary).toContain('branch main (branch feature/faster has no runs of its own yet)');

  expect(forge.comments.get(21)).toHaveLength(1);
  const comment = forge.comments.get(21)![0].body;
  expect(comment).toMatch(
    /^<!-- clusterscope-report cluster=ci workload=cpu -->\n### 🔴 Clusterscope: ci\/cpu — regression/,
  );
  const checks = [...forge.checks.values()];
  expect(checks).toHaveLength(1);
  expect(checks[0]).toMatchObject({
    name: 'Clusterscope: ci/cpu',
    head_sha: 'abcdef0000000000000000000000000000000021',
    status: 'completed',
    conclusion: 'failure',
  });
  console.log(`--- job summary ---\n${summary}\n--- PR comment ---\n${comment}`);

  // Now the branch has a run of its own: it is the baseline (the verdict of the same code on a loaded
  // machine is the statistics' business, not this test's).
  const second = await job();
  const again = second.find((s) => s.name === 'Benchmark')!;
  expect(again.stderr).toMatch(/ vs feature\/faster \(last run\): /);
  expect(again.stderr).toMatch(/updated the report on pull request #21/);
  expect(forge.comments.get(21)).toHaveLength(1);
  expect(
    forge.calls.filter((c) => c.method === 'PATCH' && c.path.includes('/issues/comments/')),
  ).toHaveLength(1);
});

test('fork PRs: the benchmark job has a read-only token, the workflow_run job posts its stored result', async () => {
  const workdir = tempDir('cs-e2e-fork');
  const headSha = 'f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0';
  const bench = await runGitHubJob(path.join(DOCS, 'github-fork-benchmark.yml'), 'benchmark', {
    workdir,
    env: actionsEnv(null, { GITHUB_HEAD_REF: 'fork-feature' }),
    vars: { CLUSTERSCOPE_URL: BASE_URL },
    secrets: { CLUSTERSCOPE_TOKEN: ciToken },
    token: 'gh-read',
    event: prEvent(22, headSha),
  });
  const step = bench.find((s) => s.name === 'Benchmark')!;
  expect(step.code, step.stderr).toBe(0);
  expect(step.stderr).toMatch(/no GitHub token .*: no pull-request comment or check run/);
  expect(forge.comments.get(22)).toBeUndefined();
  expect(fs.readFileSync(path.join(workdir, 'clusterscope-result/pr'), 'utf8')).toBe('22\n');

  // The artifact is shared through the work directory (upload/download-artifact are `uses:` steps).
  const report = await runGitHubJob(path.join(DOCS, 'github-fork-report.yml'), 'report', {
    workdir,
    env: actionsEnv('gh-write', {
      GITHUB_EVENT_NAME: 'workflow_run',
      GITHUB_HEAD_REF: '',
      GITHUB_BASE_REF: '',
    }),
    vars: { CLUSTERSCOPE_URL: BASE_URL },
    secrets: { CLUSTERSCOPE_TOKEN: ciToken },
    token: 'gh-write',
    event: { workflow_run: { id: 77, event: 'pull_request', head_sha: headSha, pull_requests: [] } },
  });
  const post = report.find((s) => s.name === 'Post the report')!;
  expect(post.code, post.stderr).toBe(0);
  expect(post.stderr).toMatch(/posted the report on pull request #22/);
  expect(forge.comments.get(22)).toHaveLength(1);
  expect([...forge.checks.values()].find((c) => c.head_sha === headSha)).toMatchObject({
    status: 'completed',
    name: 'Clusterscope: ci/cpu',
  });
});

test('gitlab-ci.yml: one merge-request note per workload, edited in place; JUnit report', async () => {
  const workdir = tempDir('cs-e2e-gl');
  const env = {
    CLUSTERSCOPE_URL: BASE_URL,
    CLUSTERSCOPE_TOKEN: ciToken,
    GITLAB_CI: 'true',
    CI_API_V4_URL: `${forge.url}/gl/api/v4`,
    CI_PROJECT_ID: '4242',
    CI_PROJECT_URL: 'https://gitlab.example.com/acme/db',
    CI_MERGE_REQUEST_IID: '5',
    CI_COMMIT_SHA: '1111111111111111111111111111111111111111',
    CI_COMMIT_REF_NAME: 'mr-branch',
    CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
    CI_RUNNER_DESCRIPTION: 'shared-runner-1',
    GITLAB_TOKEN: 'gl-write',
  };
  for (const round of [1, 2]) {
    const r = await runGitLabJob(path.join(DOCS, 'gitlab-ci.yml'), 'benchmark', { workdir, env });
    // First against the target branch (main, 10× faster), then against the MR branch's own run.
    if (round === 1) expect(r.code, r.stderr).toBe(3);
    else expect(r.stderr).toMatch(/ vs mr-branch \(last run\): /);
    expect(r.stderr).toMatch(
      round === 1 ? /posted the report on merge request !5/ : /updated the report on merge request !5/,
    );
  }
  const notes = forge.notes.get('4242!5')!;
  expect(notes).toHaveLength(1);
  expect(notes[0].body).toMatch(
    /^<!-- clusterscope-report cluster=ci workload=cpu -->\n### \S+ Clusterscope: ci\/cpu — /,
  );
  expect(notes[0].body).toContain('Baseline: mr-branch (last run)');
  expect(fs.readFileSync(path.join(workdir, 'clusterscope-junit.xml'), 'utf8')).toMatch(
    /<testcase classname="clusterscope\.ci\.cpu" name="events_per_s"/,
  );
});
