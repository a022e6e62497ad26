/**
 * Measures the verdict rule on real pgbench (`-S -P 1 -T <s> -c <c>`) against an embedded PostgreSQL:
 * - 20 A/A pairs (identical config): how often compareSamples calls a tps *regression* (false alarm);
 * - 20 A/B pairs where B's backends run in a v1 CPU cgroup whose quota follows 90% of the CPU A's side
 *   uses (paired mode; sequential: 90% of the CPU the server used unthrottled, measured first), so B is
 *   about 10% slower: how often a regression is detected;
 * - the confirmation step: a pair judged a regression is re-run VERDICT_CONFIRM times
 *   (default 2) and counts as confirmed by the server's rule, CONFIRM_RULE (false_alert_rate_confirmed,
 *   detection_rate_10pct, median seconds from suspected to confirmed). While re-runs follow, the first run
 *   and the re-runs are judged with the screening floor (suspected_aa, suspected_ab); false_regression_rate
 *   and detection_rate are what one run alone would alert on (the minimum effect).
 *
 * VERDICT_MODE=paired (default): the two runs of a pair execute at the same time on two identical
 * databases of the server, so load from other processes on a shared machine hits both alike and the rates
 * measure the statistics, not the neighbours. In A/B pairs B's backends are moved into the quota cgroup; in
 * A/A pairs nobody is moved, so both sides are scheduled identically. (Moving B into a sibling group even
 * without a quota gave it ~8% more CPU under CFS group scheduling, and moving both sides into groups of
 * their own made pairs diverge by up to 2x: neither is an A/A.)
 * VERDICT_MODE=sequential: A then B (order alternating for A/B), as CI would run them.
 * In sequential mode the machine is shared, so like the product this script knows what the environment did during each
 * run: CPU used by everything else (host busy time from /proc/stat minus the server's and pgbench's
 * cgroups). A pair whose two runs saw other load differing by more than VERDICT_ENV_LIMIT cores is
 * "environment unhealthy" and is re-run (up to VERDICT_ENV_RETRIES times, then counted as is), the way
 * the app never counts an env-unhealthy run as a regression.
 * Then (verdicts-ci.ts) the CLI as CI runs it, `clusterscope run … --fail-on-regression -- pgbench …`, 20
 * times on identical settings against a real app: the share of false failures (exit 3) and which test
 * judged each metric. VERDICT_CI=0 skips that part, VERDICT_CI=only runs only it.
 * Prints one JSON line. Options (env): VERDICT_SECONDS (run length, default 8), VERDICT_PAIRS (20),
 * VERDICT_CLIENTS (2), VERDICT_QUOTA_SHARE (0.9), VERDICT_ENV_LIMIT (0.25), VERDICT_ENV_RETRIES (4).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startEmbeddedPostgres } from '@clusterscope/db/embedded';
import { SCREEN_EFFECT_PCT } from '@clusterscope/schema';
import { compareSamples, judgeConfirmationMean, parseOutput } from '../src/index';
import { measureCli, type TCliResult } from './verdicts-ci';

const run = promisify(execFile);
const SECONDS = Number(process.env.VERDICT_SECONDS ?? 8);
const PAIRS = Number(process.env.VERDICT_PAIRS ?? 20);
const CLIENTS = Number(process.env.VERDICT_CLIENTS ?? 2);
const QUOTA_SHARE = Number(process.env.VERDICT_QUOTA_SHARE ?? 0.9);
/** Confirmation pairs a suspected regression must regress in again (the product's default confirmRuns). */
const CONFIRM = Number(process.env.VERDICT_CONFIRM ?? 2);
const ENV_LIMIT = Number(process.env.VERDICT_ENV_LIMIT ?? 0.25);
const ENV_RETRIES = Number(process.env.VERDICT_ENV_RETRIES ?? 4);
const CG = `clusterscope-verdicts-${process.pid}`;
const CPU = `/sys/fs/cgroup/cpu/${CG}`;
const ACCT = `/sys/fs/cgroup/cpuacct/${CG}`;
const CLIENT_ACCT = `/sys/fs/cgroup/cpuacct/${CG}-client`;
const CPU_B = `${CPU}-b`;
const ACCT_B = `${ACCT}-b`;
const MODE = process.env.VERDICT_MODE ?? 'paired';
const CI = process.env.VERDICT_CI ?? '1';
const PERIOD_US = 100_000;

const log = (msg: string) => process.stderr.write(`${msg}\n`);

function setQuota(us: number, dir = CPU): void {
  writeFileSync(`${dir}/cpu.cfs_quota_us`, String(us));
}
const readUsageNs = (dir = ACCT) => Number(readFileSync(`${dir}/cpuacct.usage`, 'utf8').trim());

/** Busy CPU time of the whole host in seconds (/proc/stat, USER_HZ = 100). */
function readHostBusyS(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / 100;
}

/** Moves the postmaster (and so every backend forked later) into both cgroups. */
function enterCgroups(pid: number): void {
  for (const dir of [CPU, ACCT]) {
    if (!existsSync(dir)) mkdirSync(dir);
    writeFileSync(`${dir}/cgroup.procs`, String(pid));
  }
  for (const dir of [CLIENT_ACCT, CPU_B, ACCT_B]) if (!existsSync(dir)) mkdirSync(dir);
  for (const dir of [CPU, CPU_B]) {
    writeFileSync(`${dir}/cpu.cfs_period_us`, String(PERIOD_US));
    setQuota(-1, dir);
  }
}

function leaveCgroups(pid: number | null): void {
  for (const [dir, root] of [
    [CPU, '/sys/fs/cgroup/cpu'],
    [ACCT, '/sys/fs/cgroup/cpuacct'],
    [CLIENT_ACCT, '/sys/fs/cgroup/cpuacct'],
    [CPU_B, '/sys/fs/cgroup/cpu'],
    [ACCT_B, '/sys/fs/cgroup/cpuacct'],
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
  // The client joins its own cpuacct group before exec, so its CPU is not counted as other load.
  // Progress lines go to stderr, the summary to stdout; the parser wants both.
  const { stdout, stderr } = await run(
    'sh',
    ['-c', `echo $$ > ${CLIENT_ACCT}/cgroup.procs && exec pgbench "$@"`, 'pgbench', ...args, url],
    { maxBuffer: 16 << 20 },
  );
  return `${stderr}\n${stdout}`;
}

/** tps interval samples of a pgbench output. */
function parseTps(text: string): number[] {
  const parsed = parseOutput(text, 'pgbench');
  const tps = parsed.samples.map((s) => s.values.tps).filter((v): v is number => Number.isFinite(v));
  if (tps.length < 3) throw new Error(`pgbench gave ${tps.length} progress samples:\n${text.slice(0, 2000)}`);
  return tps;
}

const PGBENCH_ARGS = () => [
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
];

type TBench = { tps: number[]; mean: number; cpuCores: number; otherCores: number };

async function benchTps(url: string): Promise<TBench> {
  const u0 = readUsageNs();
  const c0 = readUsageNs(CLIENT_ACCT);
  const h0 = readHostBusyS();
  const t0 = process.hrtime.bigint();
  const text = await pgbench(url, PGBENCH_ARGS());
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const server = (readUsageNs() - u0) / 1e9 / secs;
  const client = (readUsageNs(CLIENT_ACCT) - c0) / 1e9 / secs;
  const other = Math.max(0, (readHostBusyS() - h0) / secs - server - client);
  const tps = parseTps(text);
  return {
    tps,
    mean: tps.reduce((a, b) => a + b, 0) / tps.length,
    cpuCores: server,
    otherCores: other,
  };
}

/** Same warm-up trimming as the product (first 10% of samples, at least one). */
const trim = (xs: number[]) => xs.slice(Math.max(1, Math.floor(xs.length / 10)));

let envRetries = 0;

/** Runs a pair until the other load on the host was similar in both runs (or retries run out). */
async function runPair(
  kind: string,
  i: number,
  pair: () => Promise<[TBench, TBench]>,
): Promise<[TBench, TBench]> {
  for (let attempt = 0; ; attempt++) {
    const [a, b] = await pair();
    const delta = Math.abs(a.otherCores - b.otherCores);
    if (delta <= ENV_LIMIT || attempt >= ENV_RETRIES) return [a, b];
    envRetries++;
    log(
      `${kind} ${i + 1}: environment unhealthy (other load ${a.otherCores.toFixed(2)} vs ${b.otherCores.toFixed(2)} cores), re-running`,
    );
  }
}

/**
 * Moves the pgbench client backends of the database in `url` into the B cgroups as soon as they connect.
 * pgbench first opens (and closes) one connection to check the tables, so this waits until exactly
 * `want` live backends are there and every one of them was moved.
 */
async function moveBackendsToB(url: string, want: number): Promise<void> {
  const deadline = Date.now() + 5000;
  const moved = new Set<string>();
  const sql =
    "select pid from pg_stat_activity where datname = current_database() and application_name = 'pgbench'";
  for (;;) {
    const { stdout } = await run('psql', [url, '-Atc', sql]);
    const live = stdout
      .split('\n')
      .map((x) => x.trim())
      .filter(Boolean);
    for (const p of live) {
      if (moved.has(p)) continue;
      try {
        writeFileSync(`${CPU_B}/cgroup.procs`, p);
        writeFileSync(`${ACCT_B}/cgroup.procs`, p);
        moved.add(p);
      } catch {
        // The backend exited between the query and the move.
      }
    }
    if (live.length === want && live.every((p) => moved.has(p))) return;
    if (Date.now() > deadline) throw new Error(`found ${live.length}/${want} pgbench backends on ${url}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** How often B's quota follows A's CPU use (paired A/B). */
const FOLLOW_MS = 200;

/**
 * Keeps B's quota at `share` of the CPU A's side used in the last FOLLOW_MS: a quota fixed from one
 * calibration slows B by whatever the neighbours' load makes of it (on a busy machine a 90% calibration
 * gave 20–75% slowdowns), while a quota that follows A slows B by 1 − share under any load.
 */
function followA(share: number): () => void {
  let used = readUsageNs(ACCT);
  let at = process.hrtime.bigint();
  const timer = setInterval(() => {
    const u = readUsageNs(ACCT);
    const t = process.hrtime.bigint();
    const cores = (u - used) / Number(t - at);
    [used, at] = [u, t];
    setQuota(Math.max(1000, Math.round(cores * share * PERIOD_US)), CPU_B);
  }, FOLLOW_MS);
  return () => clearInterval(timer);
}

/**
 * Runs A and B at the same time. With `quotaUs` (-1 = unlimited) B's backends run in the B cgroup under
 * that quota, which then follows A's use when `share` is given; with null they stay where A's are.
 */
async function runConcurrentPair(
  urlA: string,
  urlB: string,
  quotaUs: number | null,
  share?: number,
): Promise<{ a: number[]; b: number[]; bCores: number }> {
  if (quotaUs !== null) setQuota(quotaUs, CPU_B);
  const u0 = readUsageNs(ACCT_B);
  const t0 = process.hrtime.bigint();
  let stop = () => undefined as void;
  try {
    const pa = pgbench(urlA, PGBENCH_ARGS());
    const pb = pgbench(urlB, PGBENCH_ARGS());
    try {
      if (quotaUs !== null) await moveBackendsToB(urlB, CLIENTS);
      if (quotaUs !== null && share !== undefined) stop = followA(share);
    } catch (err) {
      await Promise.allSettled([pa, pb]);
      throw err;
    }
    const [ta, tb] = await Promise.all([pa, pb]);
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    return { a: parseTps(ta), b: parseTps(tb), bCores: (readUsageNs(ACCT_B) - u0) / 1e9 / secs };
  } finally {
    stop();
    setQuota(-1, CPU_B);
  }
}

const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

type TRates = {
  falseRegressions: number;
  detected: number;
  slowdowns: number[];
  /** After the confirmation step: A/A pairs that ended confirmed, A/B pairs that ended confirmed. */
  falseConfirmed: number;
  detectedConfirmed: number;
  /** Seconds from a suspected regression to its confirmation. */
  toConfirmS: number[];
  /** A/A and A/B pairs suspected (judged with the screening floor). */
  suspected: { aa: number; ab: number };
};

const newRates = (): TRates => ({
  falseRegressions: 0,
  detected: 0,
  slowdowns: [],
  falseConfirmed: 0,
  detectedConfirmed: 0,
  toConfirmS: [],
  suspected: { aa: 0, ab: 0 },
});

/** While confirmation runs follow, the server judges every run of the chain with the screening floor. */
const SCREEN = CONFIRM > 0 ? { minEffectPct: SCREEN_EFFECT_PCT } : {};

/**
 * Judges a pair's first run (A's tps against B's): counts a false regression or a detection as one run
 * alone would alert (the minimum effect), and returns the verdict that makes it a suspect (SCREEN).
 */
function judgePair(out: TRates, ab: boolean, a: number[], b: number[]) {
  const alone = compareSamples(trim(a), trim(b), 'higher').verdict === 'regression';
  if (ab) {
    if (alone) out.detected++;
    out.slowdowns.push(((meanOf(a) - meanOf(b)) / meanOf(a)) * 100);
  } else if (alone) out.falseRegressions++;
  const r = compareSamples(trim(a), trim(b), 'higher', SCREEN);
  if (r.verdict === 'regression') out.suspected[ab ? 'ab' : 'aa']++;
  return r;
}

/** Paired mode: every pair runs concurrently on two identical databases (roles alternate between them). */
async function measurePaired(baseUrl: string): Promise<TRates> {
  const urls = ['bench_a', 'bench_b'].map((db) => {
    const u = new URL(baseUrl);
    u.pathname = `/${db}`;
    return u.toString();
  });
  for (const [i, db] of ['bench_a', 'bench_b'].entries()) {
    await run('psql', [baseUrl, '-qc', `CREATE DATABASE ${db}`]);
    await run('pgbench', ['-i', '-s', '1', '-q', urls[i]], { maxBuffer: 16 << 20 });
  }
  await runConcurrentPair(urls[0], urls[1], -1);
  const cal = await runConcurrentPair(urls[0], urls[1], -1);
  const quotaUs = Math.max(1000, Math.round(cal.bCores * QUOTA_SHARE * PERIOD_US));
  log(
    `calibration: ${meanOf(cal.a).toFixed(0)} / ${meanOf(cal.b).toFixed(0)} tps, B backends ${cal.bCores.toFixed(2)} cores → B quota ${quotaUs}/${PERIOD_US} µs`,
  );
  const out = newRates();
  for (let i = 0; i < PAIRS * 2; i++) {
    const ab = i >= PAIRS;
    const [ua, ub] = i % 2 === 0 ? urls : [urls[1], urls[0]];
    const r0 = await runConcurrentPair(ua, ub, ab ? quotaUs : null, QUOTA_SHARE);
    const r = judgePair(out, ab, r0.a, r0.b);
    log(
      `${ab ? 'A/B' : 'A/A'} ${(i % PAIRS) + 1}: ${meanOf(r0.a).toFixed(0)} vs ${meanOf(r0.b).toFixed(0)} tps → ${r.verdict} (${r.reason})`,
    );
    if (r.verdict !== 'regression') continue;
    await confirmPair(out, ab, () => runConcurrentPair(ua, ub, ab ? quotaUs : null, QUOTA_SHARE));
  }
  return out;
}

/**
 * Re-runs a suspected pair CONFIRM times (same baseline side, same test) and records it as confirmed only
 * when every confirmation regresses too and their mean change passes the floor, as the server's rule
 * (CONFIRM_RULE).
 */
async function confirmPair(
  out: TRates,
  ab: boolean,
  again: () => Promise<{ a: number[]; b: number[] }>,
): Promise<void> {
  const t0 = Date.now();
  let confirmed = true;
  const changes: number[] = [];
  for (let k = 0; k < CONFIRM && confirmed; k++) {
    const c0 = await again();
    const c = compareSamples(trim(c0.a), trim(c0.b), 'higher', SCREEN);
    confirmed = c.verdict === 'regression';
    changes.push(c.change_pct ?? 0);
    log(
      `  confirmation ${k + 1}/${CONFIRM}: ${meanOf(c0.a).toFixed(0)} vs ${meanOf(c0.b).toFixed(0)} tps → ${c.verdict} (${c.reason})`,
    );
  }
  if (confirmed) {
    const m = judgeConfirmationMean(changes, 'higher');
    confirmed = m.confirmed;
    log(
      `  mean ${m.meanPct.toFixed(1)} % against the ${m.floorPct.toFixed(1)} % floor → ${confirmed ? 'confirmed' : 'not confirmed'}`,
    );
  }
  if (!confirmed) return;
  out.toConfirmS.push((Date.now() - t0) / 1000);
  if (ab) out.detectedConfirmed++;
  else out.falseConfirmed++;
}

/** Sequential mode: A then B, pairs re-run when the host's other load differed (see the header). */
async function measureSequential(url: string): Promise<TRates> {
  await run('pgbench', ['-i', '-s', '1', '-q', url], { maxBuffer: 16 << 20 });
  // Calibration: CPU the server uses unthrottled; B gets QUOTA_SHARE of it.
  await benchTps(url);
  const cal = await benchTps(url);
  const quotaUs = Math.max(1000, Math.round(cal.cpuCores * QUOTA_SHARE * PERIOD_US));
  log(
    `calibration: ${cal.mean.toFixed(0)} tps, server ${cal.cpuCores.toFixed(2)} cores → B quota ${quotaUs}/${PERIOD_US} µs`,
  );
  const out = newRates();
  const runB = async () => {
    setQuota(quotaUs);
    try {
      return await benchTps(url);
    } finally {
      setQuota(-1);
    }
  };
  for (let i = 0; i < PAIRS * 2; i++) {
    const ab = i >= PAIRS;
    const kind = ab ? 'A/B' : 'A/A';
    // Alternate the order in A/B pairs so a drift in machine load does not favour either side.
    const bFirst = ab && i % 2 === 1;
    const pair = async (): Promise<[TBench, TBench]> => {
      if (!ab) return [await benchTps(url), await benchTps(url)];
      if (bFirst) {
        const b1 = await runB();
        return [await benchTps(url), b1];
      }
      const a1 = await benchTps(url);
      return [a1, await runB()];
    };
    const [a, b] = await runPair(kind, i % PAIRS, pair);
    const r = judgePair(out, ab, a.tps, b.tps);
    log(
      `${kind} ${(i % PAIRS) + 1}: ${a.mean.toFixed(0)} vs ${b.mean.toFixed(0)} tps (other load ${a.otherCores.toFixed(2)}/${b.otherCores.toFixed(2)}) → ${r.verdict} (${r.reason})`,
    );
    if (r.verdict !== 'regression') continue;
    await confirmPair(out, ab, async () => {
      const [ca, cb] = await runPair(kind, i % PAIRS, pair);
      return { a: ca.tps, b: cb.tps };
    });
  }
  return out;
}

async function main() {
  const started = Date.now();
  if (!existsSync('/sys/fs/cgroup/cpu') || !existsSync('/sys/fs/cgroup/cpuacct'))
    throw new Error('needs the cgroup v1 cpu and cpuacct hierarchies under /sys/fs/cgroup');
  const dir = mkdtempSync(join(tmpdir(), 'clusterscope-verdicts-'));
  const pg = await startEmbeddedPostgres({ dataDir: join(dir, 'pg'), database: 'bench' });
  let pid: number | null = null;
  const cleanup = async () => {
    await pg.stop();
    leaveCgroups(pid);
    rmSync(dir, { recursive: true, force: true });
  };
  // Ctrl-C / timeout: still stop PostgreSQL and remove the cgroups.
  for (const sig of ['SIGINT', 'SIGTERM'] as const)
    process.once(sig, () => void cleanup().finally(() => process.exit(130)));
  try {
    pid = Number.parseInt(readFileSync(join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0], 10);
    enterCgroups(pid);
    let ci: TCliResult | Record<string, never> = {};
    if (CI !== '0') {
      await run('pgbench', ['-i', '-s', '1', '-q', pg.url], { maxBuffer: 16 << 20 });
      ci = await measureCli(pg.url, PGBENCH_ARGS());
      if (CI === 'only') {
        console.log(JSON.stringify({ ...ci, seconds: Math.round((Date.now() - started) / 1000) }));
        return;
      }
    }
    const rates = MODE === 'sequential' ? await measureSequential(pg.url) : await measurePaired(pg.url);
    const { falseRegressions, detected, slowdowns } = rates;
    const round = (x: number) => Math.round(x * 1000) / 1000;
    const waits = [...rates.toConfirmS].sort((a, b) => a - b);
    const confirmation = {
      confirm_runs: CONFIRM,
      suspected_aa: rates.suspected.aa,
      suspected_ab: rates.suspected.ab,
      false_alert_rate_confirmed: round(rates.falseConfirmed / PAIRS),
      detection_rate_10pct: round(rates.detectedConfirmed / PAIRS),
      median_suspected_to_confirmed_s: waits.length ? round(waits[Math.floor((waits.length - 1) / 2)]) : null,
    };
    console.log(
      JSON.stringify({
        ...ci,
        aa_pairs: PAIRS,
        false_regression_rate: round(falseRegressions / PAIRS),
        ab_pairs: PAIRS,
        detection_rate: round(detected / PAIRS),
        mean_slowdown_pct: round(slowdowns.reduce((x, y) => x + y, 0) / slowdowns.length),
        ...confirmation,
        seconds: Math.round((Date.now() - started) / 1000),
        mode: MODE,
        ...(MODE === 'sequential' ? { env_unhealthy_reruns: envRetries } : {}),
      }),
    );
  } finally {
    await cleanup();
  }
}

main().catch((err) => {
  log(`bench:verdicts failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
