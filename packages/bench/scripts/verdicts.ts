/**
 * Measures the verdict rule on real pgbench runs against an embedded PostgreSQL:
 * - 20 A/A pairs (identical config): how often compareSamples calls a tps *regression* (false alarm);
 * - 20 A/B pairs where B runs with the server in a v1 CPU cgroup whose quota is ~85% of the CPU the
 *   server used unthrottled (measured first), so B is clearly slower: how often a regression is detected.
 * Prints one JSON line. Options (env): VERDICT_SECONDS (run length, default 8), VERDICT_PAIRS (20),
 * VERDICT_CLIENTS (2), VERDICT_QUOTA_SHARE (0.65).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startEmbeddedPostgres } from '@clusterscope/db/embedded';
import { compareSamples, parseOutput } from '../src/index';

const run = promisify(execFile);
const SECONDS = Number(process.env.VERDICT_SECONDS ?? 8);
const PAIRS = Number(process.env.VERDICT_PAIRS ?? 20);
const CLIENTS = Number(process.env.VERDICT_CLIENTS ?? 2);
const QUOTA_SHARE = Number(process.env.VERDICT_QUOTA_SHARE ?? 0.85);
const CG = `clusterscope-verdicts-${process.pid}`;
const CPU = `/sys/fs/cgroup/cpu/${CG}`;
const ACCT = `/sys/fs/cgroup/cpuacct/${CG}`;
const PERIOD_US = 100_000;

const log = (msg: string) => process.stderr.write(`${msg}\n`);

function setQuota(us: number): void {
  writeFileSync(`${CPU}/cpu.cfs_quota_us`, String(us));
}
const readUsageNs = () => Number(readFileSync(`${ACCT}/cpuacct.usage`, 'utf8').trim());

/** Moves the postmaster (and so every backend forked later) into both cgroups. */
function enterCgroups(pid: number): void {
  for (const dir of [CPU, ACCT]) {
    if (!existsSync(dir)) mkdirSync(dir);
    writeFileSync(`${dir}/cgroup.procs`, String(pid));
  }
  writeFileSync(`${CPU}/cpu.cfs_period_us`, String(PERIOD_US));
  setQuota(-1);
}

function leaveCgroups(pid: number | null): void {
  for (const [dir, root] of [
    [CPU, '/sys/fs/cgroup/cpu'],
    [ACCT, '/sys/fs/cgroup/cpuacct'],
  ]) {
    if (!existsSync(dir)) continue;
    try {
      const pids = readFileSync(`${dir}/cgroup.procs`, 'utf8').split('\n').filter(Boolean);
      for (const p of pids) writeFileSync(`${root}/cgroup.procs`, p);
      rmdirSync(dir);
    } catch (err) {
      log(`could not remove ${dir} (pid ${pid}): ${(err as Error).message}`);
    }
  }
}

async function pgbench(url: string, args: string[]): Promise<string> {
  // Progress lines go to stderr, the summary to stdout; the parser wants both.
  const { stdout, stderr } = await run('pgbench', [...args, url], { maxBuffer: 16 << 20 });
  return `${stderr}\n${stdout}`;
}

async function benchTps(url: string): Promise<{ tps: number[]; mean: number; cpuCores: number }> {
  const u0 = readUsageNs();
  const t0 = process.hrtime.bigint();
  const text = await pgbench(url, [
    '-n',
    '-S',
    '-P',
    '1',
    '-T',
    String(SECONDS),
    '-c',
    String(CLIENTS),
    '-j',
    String(CLIENTS),
  ]);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const parsed = parseOutput(text, 'pgbench');
  const tps = parsed.samples.map((s) => s.values.tps).filter((v): v is number => Number.isFinite(v));
  if (tps.length < 3) throw new Error(`pgbench gave ${tps.length} progress samples:\n${text.slice(0, 2000)}`);
  return {
    tps,
    mean: tps.reduce((a, b) => a + b, 0) / tps.length,
    cpuCores: (readUsageNs() - u0) / 1e9 / secs,
  };
}

/** Same warm-up trimming as the product (first 10% of samples, at least one). */
const trim = (xs: number[]) => xs.slice(Math.max(1, Math.floor(xs.length / 10)));

async function main() {
  const started = Date.now();
  if (!existsSync('/sys/fs/cgroup/cpu') || !existsSync('/sys/fs/cgroup/cpuacct'))
    throw new Error('needs the cgroup v1 cpu and cpuacct hierarchies under /sys/fs/cgroup');
  const dir = mkdtempSync(join(tmpdir(), 'clusterscope-verdicts-'));
  const pg = await startEmbeddedPostgres({ dataDir: join(dir, 'pg'), database: 'bench' });
  let pid: number | null = null;
  try {
    pid = Number.parseInt(readFileSync(join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0], 10);
    enterCgroups(pid);
    await run('pgbench', ['-i', '-s', '1', '-q', pg.url], { maxBuffer: 16 << 20 });
    // Calibration: CPU the server uses unthrottled; B gets QUOTA_SHARE of it.
    await benchTps(pg.url);
    const cal = await benchTps(pg.url);
    const quotaUs = Math.max(1000, Math.round(cal.cpuCores * QUOTA_SHARE * PERIOD_US));
    log(
      `calibration: ${cal.mean.toFixed(0)} tps, server ${cal.cpuCores.toFixed(2)} cores → B quota ${quotaUs}/${PERIOD_US} µs`,
    );

    let falseRegressions = 0;
    for (let i = 0; i < PAIRS; i++) {
      const a = await benchTps(pg.url);
      const b = await benchTps(pg.url);
      const r = compareSamples(trim(a.tps), trim(b.tps), 'higher');
      if (r.verdict === 'regression') falseRegressions++;
      log(`A/A ${i + 1}: ${a.mean.toFixed(0)} vs ${b.mean.toFixed(0)} tps → ${r.verdict} (${r.reason})`);
    }
    let detected = 0;
    const slowdowns: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      // Alternate the order so a drift in machine load does not favour either side.
      const bFirst = i % 2 === 1;
      const runB = async () => {
        setQuota(quotaUs);
        try {
          return await benchTps(pg.url);
        } finally {
          setQuota(-1);
        }
      };
      let a;
      let b;
      if (bFirst) {
        b = await runB();
        a = await benchTps(pg.url);
      } else {
        a = await benchTps(pg.url);
        b = await runB();
      }
      const r = compareSamples(trim(a.tps), trim(b.tps), 'higher');
      if (r.verdict === 'regression') detected++;
      slowdowns.push(((a.mean - b.mean) / a.mean) * 100);
      log(`A/B ${i + 1}: ${a.mean.toFixed(0)} vs ${b.mean.toFixed(0)} tps → ${r.verdict} (${r.reason})`);
    }
    const round = (x: number) => Math.round(x * 1000) / 1000;
    console.log(
      JSON.stringify({
        aa_pairs: PAIRS,
        false_regression_rate: round(falseRegressions / PAIRS),
        ab_pairs: PAIRS,
        detection_rate: round(detected / PAIRS),
        mean_slowdown_pct: round(slowdowns.reduce((x, y) => x + y, 0) / slowdowns.length),
        seconds: Math.round((Date.now() - started) / 1000),
      }),
    );
  } finally {
    leaveCgroups(pid);
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  log(`bench:verdicts failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
