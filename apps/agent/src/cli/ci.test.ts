/**
 * `--github-actions`, `--gitlab` and `--junit` against stand-ins of the GitHub REST API and GitLab's notes
 * API served on loopback (with a fake of the Clusterscope runs API): the tests assert on what they received.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { capture } from '../../test/io';
import { ApiClient, type TRunReport } from './api-client';
import { CiPublisher, NO_CI, reportMarker, reportRun, type CiOptions } from './ci';
import { runBenchmark } from './run';
import { readEnv } from '../env';
import { makeReport } from './report.test-helper';
import { startForge, type TForge } from '../../test/forge';

/** The forge stand-ins with a fake of the Clusterscope runs API (run_1 and its report) on the same server. */
const startStandIns = (report: () => TRunReport) =>
  startForge({
    other: ({ method, path }) => {
      if (path === '/api/v1/runs' && method === 'POST') return { status: 201, body: { id: 'run_1' } };
      if (path.startsWith('/api/v1/runs/run_1/report')) return { status: 200, body: report() };
      if (path.startsWith('/api/v1/runs/run_1/')) return { status: 200, body: { summary: [] } };
      return undefined;
    },
  });

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

const dir = () => mkdtempSync(join(tmpdir(), 'cs-ci-'));

/** A GitHub Actions job's environment for a pull_request event on PR 12 (head sha beef…), token gh-write. */
function actionsEnv(
  url: string,
  d: string,
  event: object = { pull_request: { number: 12, head: { sha: 'beef0001' } } },
  token = 'gh-write',
) {
  const eventPath = join(d, 'event.json');
  writeFileSync(eventPath, JSON.stringify(event));
  writeFileSync(join(d, 'summary.md'), '');
  writeFileSync(join(d, 'output.txt'), '');
  return readEnv({
    GITHUB_API_URL: `${url}/gh`,
    GITHUB_REPOSITORY: 'acme/db',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: 'merge0001',
    GITHUB_RUN_ID: '555',
    GITHUB_TOKEN: token,
    GITHUB_STEP_SUMMARY: join(d, 'summary.md'),
    GITHUB_OUTPUT: join(d, 'output.txt'),
  });
}

const gh: CiOptions = { ...NO_CI, githubActions: true };

/** `clusterscope run --github-actions` of a one-line tool. */
async function runOnce(s: TForge, env: ReturnType<typeof readEnv>, opts = gh) {
  const cap = capture();
  const code = await runBenchmark(
    new ApiClient(s.url, 'cs-token'),
    {
      cluster: 'ci',
      workload: 'cpu',
      labels: {},
      failOnRegression: true,
      argv: ['sh', '-c', 'echo benchmark-running'],
      ci: new CiPublisher(env, opts, cap.io),
    },
    cap.io,
  );
  return { code, cap };
}

describe('--github-actions', () => {
  it('first run posts one comment, the second edits it; check in progress while the tool runs, then success; summary and outputs', async () => {
    const s = await startStandIns(() => makeReport(false));
    close = s.close;
    const d = dir();
    const env = actionsEnv(s.url, d);
    const first = await runOnce(s, env);
    expect(first.code).toBe(0);
    const posts = s.calls.filter(
      (c) => c.method === 'POST' && c.path === '/gh/repos/acme/db/issues/12/comments',
    );
    expect(posts).toHaveLength(1);
    const marker = reportMarker('ci', 'cpu');
    expect(posts[0].body!.body).toBe(`${marker}\n${makeReport(false).markdown}`);

    // The check was created in progress for the PR's head sha before the run was created, completed after.
    const order = s.calls.map((c) => `${c.method} ${c.path.split('?')[0]}`);
    const created = order.indexOf('POST /gh/repos/acme/db/check-runs');
    expect(created).toBeGreaterThanOrEqual(0);
    expect(created).toBeLessThan(order.indexOf('POST /api/v1/runs'));
    const [checkId, check] = [...s.checks.entries()][0];
    expect(check).toMatchObject({
      name: 'Clusterscope: ci/cpu',
      head_sha: 'beef0001',
      status: 'completed',
      conclusion: 'success',
      details_url: 'https://cs.example.com/acme/runs/run_1',
    });
    expect(order.indexOf(`PATCH /gh/repos/acme/db/check-runs/${checkId}`)).toBeGreaterThan(
      order.indexOf('POST /api/v1/runs/run_1/finish'),
    );

    const second = await runOnce(s, env);
    expect(second.code).toBe(0);
    expect(s.comments.get(12)).toHaveLength(1);
    const patches = s.calls.filter(
      (c) => c.method === 'PATCH' && c.path.startsWith('/gh/repos/acme/db/issues/comments/'),
    );
    expect(patches).toHaveLength(1);
    expect(second.cap.err()).toMatch(/updated the report on pull request #12/);

    expect(readFileSync(join(d, 'summary.md'), 'utf8')).toBe(`${makeReport(false).markdown}\n`.repeat(2));
    const outputs = readFileSync(join(d, 'output.txt'), 'utf8');
    expect(outputs).toMatch(/^run-id<<(CLUSTERSCOPE_\w+)\nrun_1\n\1\n/);
    expect(outputs).toMatch(/verdict<<(\w+)\nnoise\n\1\n/);
    expect(outputs).toMatch(/run-url<<(\w+)\nhttps:\/\/cs\.example\.com\/acme\/runs\/run_1\n\1\n/);
  });

  it('a regression completes the check with failure, exits 3, and outputs the regressed metrics', async () => {
    const s = await startStandIns(() => makeReport(true));
    close = s.close;
    const d = dir();
    const { code } = await runOnce(s, actionsEnv(s.url, d));
    expect(code).toBe(3);
    const check = [...s.checks.values()][0];
    expect(check).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(String((check.output as { title: string }).title)).toMatch(/^regression: regressed: events_per_s/);
    expect(readFileSync(join(d, 'output.txt'), 'utf8')).toMatch(/regressions<<(\w+)\nevents_per_s\n\1\n/);
  });

  it('a run without a baseline completes the check as neutral with the reason', async () => {
    const s = await startStandIns(() =>
      makeReport(false, {
        verdict: 'no_baseline',
        verdict_words: 'no baseline',
        reason: 'no baseline run to compare with',
      }),
    );
    close = s.close;
    await runOnce(s, actionsEnv(s.url, dir()));
    expect([...s.checks.values()][0]).toMatchObject({
      conclusion: 'neutral',
      output: expect.objectContaining({ title: 'no baseline: no baseline run to compare with' }),
    });
  });

  it('--ci-id keeps one comment per job; --ci-only-on-alert skips the comment while nothing regressed', async () => {
    const s = await startStandIns(() => makeReport(false));
    close = s.close;
    const env = actionsEnv(s.url, dir());
    await runOnce(s, env, { ...gh, ciId: 'pg15' });
    await runOnce(s, env, { ...gh, ciId: 'pg16' });
    await runOnce(s, env, { ...gh, ciId: 'pg16' });
    expect(s.comments.get(12)!.map((c) => c.body.split('\n')[0])).toEqual([
      reportMarker('ci', 'cpu', 'pg15'),
      reportMarker('ci', 'cpu', 'pg16'),
    ]);
    const before = s.calls.length;
    const { cap } = await runOnce(s, env, { ...gh, onlyOnAlert: true });
    expect(s.calls.slice(before).some((c) => c.path.includes('/comments'))).toBe(false);
    expect(cap.err()).toMatch(/no regression: no pull-request comment/);
  });

  it('fork PR: a workflow_run job posts the stored result for the --pr and --head-sha it names', async () => {
    const s = await startStandIns(() => makeReport(true));
    close = s.close;
    // A workflow_run event of a fork PR names no pull requests: the flags (from the artifact) do.
    const env = actionsEnv(s.url, dir(), { workflow_run: { head_sha: 'other', pull_requests: [] } });
    const cap = capture();
    const { code } = await reportRun(
      new ApiClient(s.url, 'cs-token'),
      new CiPublisher(env, { ...gh, pr: 34, headSha: 'f00d0034' }, cap.io),
      'run_1',
      { failOnRegression: false },
    );
    expect(code).toBe(0);
    expect(s.comments.get(34)).toHaveLength(1);
    expect(s.comments.get(34)![0].body).toContain('Clusterscope: ci/cpu — regression');
    // No check was in progress (the benchmark ran elsewhere): one is created completed on the head sha.
    expect(s.calls.filter((c) => c.path === '/gh/repos/acme/db/check-runs')).toHaveLength(1);
    expect([...s.checks.values()][0]).toMatchObject({
      head_sha: 'f00d0034',
      status: 'completed',
      conclusion: 'failure',
    });
  });

  it('a token without write access: a clear error, and the benchmark step does not fail unless asked', async () => {
    const s = await startStandIns(() => makeReport(false));
    close = s.close;
    const env = actionsEnv(s.url, dir(), undefined, 'gh-read');
    const { code, cap } = await runOnce(s, env);
    expect(code).toBe(0);
    expect(cap.err()).toMatch(
      /writing the pull-request comment on #12 failed: POST .*\/issues\/12\/comments answered HTTP 403: .*Resource not accessible by integration.*\n {2}→ the token cannot write to acme\/db: give the job "permissions: pull-requests: write"\. On pull requests from forks GITHUB_TOKEN is read-only; post from a workflow_run job/,
    );
    expect(cap.err()).toMatch(/creating the check run failed: .*HTTP 403[\s\S]*"permissions: checks: write"/);
    expect(cap.err()).toMatch(/the benchmark result stands \(pass --fail-on-ci-error to fail on this\)/);
    const strict = await runOnce(s, env, { ...gh, failOnCiError: true });
    expect(strict.code).toBe(1);
  });
});

describe('--gitlab', () => {
  it('one merge-request note per workload, edited in place', async () => {
    const s = await startStandIns(() => makeReport(true));
    close = s.close;
    const env = readEnv({
      CI_API_V4_URL: `${s.url}/gl/api/v4`,
      CI_PROJECT_ID: '42',
      CI_MERGE_REQUEST_IID: '7',
      GITLAB_TOKEN: 'gl-write',
    });
    const api = new ApiClient(s.url, 'cs-token');
    for (let i = 0; i < 2; i++) {
      const cap = capture();
      const { code } = await reportRun(
        api,
        new CiPublisher(env, { ...NO_CI, gitlab: true }, cap.io),
        'run_1',
        {
          failOnRegression: true,
        },
      );
      expect(code).toBe(3);
      expect(cap.err()).toMatch(
        i === 0 ? /posted the report on merge request !7/ : /updated the report on merge request !7/,
      );
    }
    expect(s.notes.get('42!7')).toHaveLength(1);
    expect(s.notes.get('42!7')![0].body).toBe(`${reportMarker('ci', 'cpu')}\n${makeReport(true).markdown}`);
    expect(s.calls.filter((c) => c.path.startsWith('/gl/')).map((c) => c.method)).toEqual([
      'GET',
      'POST',
      'GET',
      'PUT',
    ]);
  });
});

describe('--junit and --json', () => {
  it('JUnit has one test case per judged metric, a failure for a regression; --json prints the report', async () => {
    const s = await startStandIns(() => makeReport(true));
    close = s.close;
    const file = join(dir(), 'junit.xml');
    const cap = capture();
    await reportRun(
      new ApiClient(s.url, 'cs-token'),
      new CiPublisher(readEnv({}), { ...NO_CI, junit: file, json: true }, cap.io),
      'run_1',
      { failOnRegression: false },
    );
    const xml = readFileSync(file, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(1);
    expect(xml).toMatch(
      /<testcase classname="clusterscope\.ci\.cpu" name="events_per_s"[^>]*>\s*<failure message="Events\/s regressed vs main \(last 3 runs\): -12\.50% \(p=0\.001, welch\)" type="regression"/,
    );
    expect(JSON.parse(cap.out())).toEqual(makeReport(true));
  });

  it('escapes names in the XML', async () => {
    const s = await startStandIns(() => makeReport(true, { workload: 'a<b>&"c' }));
    close = s.close;
    const file = join(dir(), 'junit.xml');
    await reportRun(
      new ApiClient(s.url, 'cs-token'),
      new CiPublisher(readEnv({}), { ...NO_CI, junit: file }, capture().io),
      'run_1',
      { failOnRegression: false },
    );
    expect(readFileSync(file, 'utf8')).toContain('classname="clusterscope.ci.a&lt;b>&amp;&quot;c"');
  });
});
