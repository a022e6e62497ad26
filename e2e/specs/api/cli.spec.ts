/**
 * The `clusterscope` CI CLI (dist/clusterscope.js) against the real app: submit a recorded output, run
 * real sysbench with live samples, --fail-on-regression against a much faster baseline, usage errors.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { BASE_URL, DATA_DIR } from '../../playwright.config';
import { adminTokenFor, buildAgentDist, createCluster } from '../../fixtures/agent';
import { getRunPoints } from './run-points';
import { tempDir } from '@clusterscope/agent/testing';
import { sysbenchCpuAndTenfold } from '../../fixtures/sysbench';

const FIXTURES = path.resolve(import.meta.dirname, '../../../packages/bench/fixtures');
const uid = () => randomBytes(4).toString('hex');
const auth = (t: string) => ({ authorization: `Bearer ${t}` });

let cliJs: string;
let admin: string;
let ciToken: string;
let cluster: string;
let work: string;

interface TCli {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with a clean CI-less environment; resolves with its exit code and output. */
function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<TCli> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !/^(CLUSTERSCOPE_|GITHUB_|CI_)/.test(k)) base[k] = v;
  const fullEnv: Record<string, string | undefined> = {
    ...base,
    CLUSTERSCOPE_URL: BASE_URL,
    CLUSTERSCOPE_TOKEN: ciToken,
    ...env,
  };
  for (const [k, v] of Object.entries(fullEnv)) if (v === undefined) delete fullEnv[k];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cliJs, ...args],
      { env: fullEnv as NodeJS.ProcessEnv, timeout: 90_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const runIdFrom = (text: string): string => {
  const m = /run (\S+?)[: ](created|succeeded|failed)?/.exec(text);
  if (!m) throw new Error(`no run id in:\n${text}`);
  return m[1];
};

async function getRun(request: APIRequestContext, id: string) {
  const res = await request.get(`/api/v1/runs/${id}`, { headers: auth(admin) });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as {
    status: string;
    tool: string;
    toolWorkload: string;
    exitCode: number | null;
    workloadName: string;
    clusterName: string;
    summary: { name: string; value: number; unit: string }[];
    labels: Record<string, string>;
  };
}

function getSamples(request: APIRequestContext, id: string) {
  return getRunPoints(request, auth(admin), id);
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ request }) => {
  cliJs = buildAgentDist().cliJs;
  admin = adminTokenFor(DATA_DIR, `e2e-cli-${uid()}`);
  cluster = `ci-${uid()}`;
  await createCluster(BASE_URL, admin, cluster);
  const res = await request.post('/api/trpc/tokens.create', {
    headers: auth(admin),
    data: { name: `ci-${uid()}`, scopes: ['runs:write', 'read'] },
  });
  expect(res.status(), await res.text()).toBe(200);
  ciToken = (await res.json()).result.data.token;
  work = tempDir('cs-e2e-cli');
});

/** `clusterscope run` of `command` as workload "cpu" of the test cluster. */
const cliRun = (command: string[]) =>
  cli(['run', '--cluster', cluster, '--workload', 'cpu', '--', ...command]);

test('submit a recorded pgbench output: the run has its parsed summary and samples', async ({ request }) => {
  const r = await cli([
    'submit',
    '--cluster',
    cluster,
    '--workload',
    'tpcb',
    '--tool',
    'pgbench',
    '--label',
    'pr=42',
    path.join(FIXTURES, 'pgbench_tpcb.txt'),
  ]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^run \S+: pgbench tpcb-like, \d+ samples, \d+ metrics$/m);
  expect(r.stdout).toMatch(/^ {2}tps = 1514\.47335/m);
  const id = runIdFrom(r.stdout);
  const run = await getRun(request, id);
  expect(run).toMatchObject({
    status: 'succeeded',
    tool: 'pgbench',
    toolWorkload: 'tpcb-like',
    workloadName: 'tpcb',
    clusterName: cluster,
    labels: { pr: '42' },
  });
  expect(run.summary.find((m) => m.name === 'tps')?.value).toBeCloseTo(1514.47335, 3);
  expect(run.summary.find((m) => m.name === 'lat_avg_ms')?.value).toBeCloseTo(1.318, 3);
  const points = await getSamples(request, id);
  expect(points.map((p) => p.elapsed_s)).toEqual([...new Set(points.map((p) => p.elapsed_s))]);
  expect(points[0].values.tps).toBeCloseTo(838.8, 1);
});

test('run real sysbench: exit code passed through, live samples stored once, summary parsed', async ({
  request,
}) => {
  const r = await cliRun(['sysbench', 'cpu', '--time=4', '--report-interval=1', 'run']);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/events per second:/); // the tool's output is passed through
  const live = /run (\S+) succeeded \(exit code 0, (\d+) live samples posted\)/.exec(r.stderr);
  expect(live, r.stderr).not.toBeNull();
  const [, id, postedText] = live!;
  const posted = Number(postedText);
  expect(posted).toBeGreaterThanOrEqual(2);
  const run = await getRun(request, id);
  expect(run).toMatchObject({ status: 'succeeded', tool: 'sysbench', toolWorkload: 'cpu', exitCode: 0 });
  expect(run.summary.find((m) => m.name === 'events_per_s')?.value).toBeGreaterThan(0);
  // The server stores the output's intervals only when none were posted live: no duplicates.
  const points = await getSamples(request, id);
  expect(points).toHaveLength(posted);
  expect(points.map((p) => p.elapsed_s)).toEqual(Array.from({ length: posted }, (_, i) => i + 1));
  expect(points.every((p) => p.values.events_per_s > 0)).toBe(true);
});

test("a failing tool: the CLI exits with the tool's code and the run is failed", async ({ request }) => {
  const r = await cliRun(['sysbench', 'cpu', 'nosuchcmd']);
  expect(r.code).toBe(1);
  const m = /run (\S+) failed \(exit code 1/.exec(r.stderr);
  expect(m, r.stderr).not.toBeNull();
  expect(await getRun(request, m![1])).toMatchObject({ status: 'failed', exitCode: 1 });

  const missing = await cliRun(['no-such-tool-xyz']);
  expect(missing.code).toBe(127);
  expect(missing.stderr).toMatch(/"no-such-tool-xyz" not found on PATH/);
});

test('--fail-on-regression against a much faster baseline exits 3 with a verdict table', async () => {
  // A real sysbench output with every throughput figure ×10 is the "much faster" baseline; 7 s give ≥ 5
  // interval samples per run, so the comparison uses samples (CI and p-value), not summaries.
  const { real, fast } = sysbenchCpuAndTenfold(7);
  expect(fast).not.toBe(real);
  const file = path.join(work, 'fast-baseline.txt');
  fs.writeFileSync(file, fast);
  const sub = await cli(['submit', '--cluster', cluster, '--workload', 'cpu-gate', file]);
  expect(sub.code, sub.stderr).toBe(0);
  const baseline = runIdFrom(sub.stdout);

  const r = await cli([
    'run', '--cluster', cluster, '--workload', 'cpu-gate', '--fail-on-regression', '--baseline', baseline,
    '--', 'sysbench', 'cpu', '--time=7', '--report-interval=1', 'run',
  ]); // prettier-ignore
  expect(r.code, r.stderr).toBe(3);
  // The server's report, as the run page words it.
  expect(r.stderr).toMatch(/^metric +baseline +this run +change +95% CI +test +verdict$/m);
  expect(r.stderr).toMatch(
    /^events_per_s +[\d,.]+ events\/s +[\d,.]+ events\/s +-(89|9\d)\.\d% +\[[-+]?[\d.]+%, [-+]?[\d.]+%\] +(Welch t|bootstrap), [a-z ]+ +regression$/m,
  );
  expect(r.stderr).toMatch(new RegExp(`regression against ${baseline}: exiting with 3`));
  expect(r.stderr).toMatch(new RegExp(`^Baseline: run ${baseline.slice(-8)}\\.$`, 'm'));
  expect(r.stderr).toMatch(new RegExp(`^run: +${BASE_URL}/[\\w-]+/runs/\\w+$`, 'm'));
  expect(r.stderr).toMatch(
    new RegExp(`^compare: +${BASE_URL}/[\\w-]+/compare\\?runs=${baseline}%2C\\w+$`, 'm'),
  );

  // The same baseline used for itself: no regression, exit 0.
  const same = await cli([
    'submit', '--cluster', cluster, '--workload', 'cpu-gate', '--fail-on-regression', '--baseline', baseline, file,
  ]); // prettier-ignore
  expect(same.code, same.stderr).toBe(0);
  expect(same.stderr).toMatch(/^events_per_s +.* 0\.0% .* no change$/m);
});

test('bad usage exits 2 with a clear message', async () => {
  const cases: [string[], RegExp][] = [
    [['run', '--cluster', cluster, '--', 'sysbench', 'cpu', 'run'], /--workload is required/],
    [['run', '--cluster', cluster, '--workload', 'w'], /no tool given: put the command after "--"/],
    [['submit', '--cluster', cluster, '--workload', 'w'], /give exactly one output file/],
    [['submit', '--cluster', cluster, '--workload', 'w', '--tool', 'nope', 'x.txt'], /--tool "nope" must be one of/],
    [['submit', '--cluster', cluster, '--workload', 'w', '--label', 'novalue', 'x.txt'], /--label "novalue" must be key=value/],
    [['submit', '--cluster', cluster, '--workload', 'w', '/nonexistent/out.txt'], /cannot read \/nonexistent\/out\.txt/],
    [['run', '--bogus'], /Unknown option '--bogus'/],
    [['frobnicate'], /unknown command "frobnicate"/],
  ]; // prettier-ignore
  for (const [args, msg] of cases) {
    const r = await cli(args);
    expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(2);
    expect(r.stderr).toMatch(msg);
    expect(r.stderr).toMatch(/Run "clusterscope --help" for usage/);
  }
});

test('a missing CLUSTERSCOPE_TOKEN is named; a bad token or cluster is an API error', async () => {
  const file = path.join(FIXTURES, 'pgbench_tpcb.txt');
  const noToken = await cli(['submit', '--cluster', cluster, '--workload', 'w', file], {
    CLUSTERSCOPE_TOKEN: undefined,
  });
  expect(noToken.code).toBe(2);
  expect(noToken.stderr).toMatch(/CLUSTERSCOPE_TOKEN is not set/);

  const badToken = await cli(['submit', '--cluster', cluster, '--workload', 'w', file], {
    CLUSTERSCOPE_TOKEN: 'cs_definitely_not_a_token',
  });
  expect(badToken.code).toBe(1);
  expect(badToken.stderr).toMatch(/HTTP 401/);
  expect(badToken.stderr).toMatch(/CLUSTERSCOPE_TOKEN is missing, invalid or revoked/);

  // An unknown cluster id (an unknown name would be created: the org setting is on by default).
  const noCluster = await cli([
    'submit',
    '--cluster',
    `cnope${uid()}${uid()}${uid()}`,
    '--workload',
    'w',
    file,
  ]);
  expect(noCluster.code).toBe(1);
  expect(noCluster.stderr).toMatch(/HTTP 404/);
  expect(noCluster.stderr).toMatch(/cnope/);
});
