/**
 * The CI part of `npm run bench:verdicts`: runs the `clusterscope` CLI the way a CI job does,
 * `clusterscope run … --fail-on-regression -- pgbench …`, VERDICT_CI_RUNS times (default 20) on identical
 * settings against a real app on loopback (apps/web/scripts/launch.ts: its own embedded PostgreSQL and
 * chDB in a temp DATA_DIR, demo org), after VERDICT_CI_WARMUP runs (default 3) that fill the default
 * baseline (main, last 3 runs). Every counted run is unchanged code, so each exit 3 is a false failure.
 * Reports the share that exited 3 and, from the REST comparison of each run, which metrics made the
 * verdict and which test judged them.
 *
 * VERDICT_CI_APP_ROOT: the repository whose app and CLI are run (default this one; point it at a
 * checkout of older code to measure its share). The CLI is the agent package's `clusterscope` bin
 * (apps/agent/dist/clusterscope.js), the bundle CI downloads. VERDICT_CI_DEV=1 starts the app with `--dev`
 * (vite dev) and the CLI from its source; otherwise both builds must exist
 * (`npx turbo run build --filter=@clusterscope/web --filter=@clusterscope/agent`).
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const ROOT = resolve(process.env.VERDICT_CI_APP_ROOT ?? join(import.meta.dirname, '../../..'));
const RUNS = Number(process.env.VERDICT_CI_RUNS ?? 20);
const WARMUP = Number(process.env.VERDICT_CI_WARMUP ?? 3);
const PORT = Number(process.env.VERDICT_CI_PORT ?? 3206);
const DEV = process.env.VERDICT_CI_DEV === '1';
const log = (msg: string) => process.stderr.write(`${msg}\n`);

type TVerdictRow = {
  metric: string;
  verdict: string;
  test: string;
  kind?: string;
  evidence?: string;
  judged?: boolean;
  change_pct: number | null;
};

export type TCliResult = {
  ci_runs: number;
  ci_exit3: number;
  ci_false_failure_share: number;
  /** metric → test → how many counted runs it was judged (or shown) by that test. */
  ci_tests: Record<string, Record<string, number>>;
  /** metric → how many counted runs it regressed in a way that failed the run. */
  ci_failing_metrics: Record<string, number>;
  ci_app_root: string;
};

/** This environment without database settings: the app starts its own embedded databases. */
function ownEnv(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, CLICKHOUSE_URL: _c, ...rest } = process.env;
  void _d;
  void _c;
  return rest;
}

async function waitHealthy(port: number, child: ReturnType<typeof spawn>, out: () => string) {
  const until = Date.now() + 240_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`app exited during start-up:\n${out()}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/health`)).ok) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`app on port ${port} not healthy after 240 s:\n${out().slice(-3000)}`);
}

export async function measureCli(pgUrl: string, pgbenchArgs: string[]): Promise<TCliResult> {
  const webDir = join(ROOT, 'apps/web');
  const cliBin = join(ROOT, 'apps/agent/dist/clusterscope.js');
  for (const built of DEV ? [] : [join(webDir, 'build'), cliBin])
    if (!existsSync(built))
      throw new Error(
        `${built} is missing: run npx turbo run build --filter=@clusterscope/web --filter=@clusterscope/agent, or set VERDICT_CI_DEV=1`,
      );
  const cliArgv = DEV ? ['--import', 'tsx', join(ROOT, 'apps/agent/src/bin/clusterscope.ts')] : [cliBin];
  const dataDir = mkdtempSync(join(tmpdir(), 'clusterscope-verdicts-ci-'));
  let out = '';
  const app = spawn(
    process.execPath,
    ['--import', 'tsx', join(webDir, 'scripts/launch.ts'), ...(DEV ? ['--dev'] : [])],
    {
      cwd: webDir,
      env: { ...ownEnv(), DATA_DIR: dataDir, PORT: String(PORT), DEMO: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  app.stdout!.on('data', (d) => (out += d));
  app.stderr!.on('data', (d) => (out += d));
  const exited = new Promise((r) => app.once('exit', r));
  try {
    await waitHealthy(PORT, app, () => out);
    const { stdout } = await exec(
      process.execPath,
      ['--import', 'tsx', join(webDir, 'scripts/admin.ts'), 'token', 'create', '--org', 'demo', '--name',
        `verdicts-${randomBytes(3).toString('hex')}`, '--scopes', 'runs:write,read'], // prettier-ignore
      { cwd: webDir, env: { ...ownEnv(), DATA_DIR: dataDir } },
    );
    const token = stdout.trim().split('\n').pop()!;
    const base = `http://127.0.0.1:${PORT}`;
    const workload = `pgbench-select-${process.pid}`;
    const res: TCliResult = {
      ci_runs: 0,
      ci_exit3: 0,
      ci_false_failure_share: 0,
      ci_tests: {},
      ci_failing_metrics: {},
      ci_app_root: ROOT,
    };
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const sha = randomBytes(20).toString('hex');
      const cli = spawn(
        process.execPath,
        [...cliArgv, 'run', '--cluster', 'verdicts-ci',
          '--workload', workload, '--repo', 'https://git.example/verdicts', '--branch', 'main', '--sha', sha,
          '--fail-on-regression', '--', 'pgbench', ...pgbenchArgs, pgUrl], // prettier-ignore
        {
          cwd: join(ROOT, 'apps/agent'),
          env: { ...process.env, CLUSTERSCOPE_URL: base, CLUSTERSCOPE_TOKEN: token },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let err = '';
      cli.stdout!.on('data', () => undefined);
      cli.stderr!.on('data', (d) => (err += d));
      const code = await new Promise<number>((r) => cli.once('close', (c) => r(c ?? 1)));
      const id = /run (\S+) created/.exec(err)?.[1];
      if (code !== 0 && code !== 3) throw new Error(`clusterscope run exited ${code}:\n${err.slice(-3000)}`);
      if (i < WARMUP) {
        log(`CI warm-up ${i + 1}/${WARMUP}: run ${id} exit ${code}`);
        continue;
      }
      res.ci_runs++;
      if (code === 3) res.ci_exit3++;
      const cmp = (await (
        await fetch(`${base}/api/v1/runs/${id}/compare`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as { verdicts: TVerdictRow[]; reason: string };
      for (const v of cmp.verdicts) {
        const how = `${v.test}${v.evidence ? `/${v.evidence}` : ''}${v.judged === false ? ' (not counted)' : ''}`;
        const t = (res.ci_tests[v.metric] ??= {});
        t[how] = (t[how] ?? 0) + 1;
        if (v.verdict === 'regression' && v.judged !== false)
          res.ci_failing_metrics[v.metric] = (res.ci_failing_metrics[v.metric] ?? 0) + 1;
      }
      log(`CI run ${res.ci_runs}/${RUNS}: ${id} exit ${code} (${cmp.reason})`);
    }
    res.ci_false_failure_share = Math.round((res.ci_exit3 / Math.max(1, res.ci_runs)) * 1000) / 1000;
    return res;
  } finally {
    app.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
