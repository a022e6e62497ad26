/**
 * Agent footprint bench: 9 fixture CockroachDB nodes (status API + a real 2,951-line v19.2 `/_status/vars` each,
 * counters advancing, scraped by the prometheus input), a temp v2 cgroup tree (20 cgroups) and a local 202 sink;
 * runs `node dist/agent.js` and samples its RSS/CPU from /proc.
 * Prints ONE JSON line. Env: BENCH_DURATION_S (default 60), BENCH_INTERVAL (default 10s), BENCH_PROMETHEUS=0 (baseline
 * without the prometheus input) or `none` (scrape and parse, keep nothing).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeFakeV2Tree } from '../test/cgroup-fixture';
import {
  makeLiveness,
  makeStatusNodes,
  startCockroachFixture,
  storeMetrics,
  type FixtureNode,
} from '../test/cockroach-fixture';
import { startFakeIngest } from '../test/fake-ingest';
import { AGENT_NODE_FLAGS } from './node-flags';

const root = fileURLToPath(new URL('..', import.meta.url));
const durationS = Number(process.env.BENCH_DURATION_S ?? 60);
const interval = process.env.BENCH_INTERVAL ?? '10s';
// Same flags as deploy/clusterscope-agent.service; BENCH_NODE_FLAGS=none runs plain `node`.
const flagsEnv = process.env.BENCH_NODE_FLAGS ?? AGENT_NODE_FLAGS.join(' ');
const nodeFlags = flagsEnv === 'none' ? [] : flagsEnv.split(' ').filter(Boolean);

const agentJs = process.env.BENCH_AGENT ?? join(root, 'dist/agent.js');
if (!process.env.BENCH_AGENT && (process.env.BENCH_SKIP_BUILD !== '1' || !existsSync(agentJs))) {
  execFileSync(process.execPath, ['build.mjs'], { cwd: root, stdio: 'inherit' });
}

const nodes: FixtureNode[] = Array.from({ length: 9 }, (_, i) => ({
  id: i + 1,
  liveness: 3,
  expiresInMs: 4500,
  stores: [storeMetrics(i), storeMetrics(i + 100)],
}));
const varsText = readFileSync(join(root, 'src/inputs/prometheus/fixtures/v19.2-status-vars.txt'), 'utf8');
const crdbs = await Promise.all(
  nodes.map((n) => {
    let scrapes = 0;
    return startCockroachFixture(() => ({
      nodes: makeStatusNodes(nodes, Date.now()),
      liveness: makeLiveness(nodes, Date.now()),
      nodeId: n.id,
      // Counters advance between scrapes, as on a busy node.
      vars: varsText.replace(
        /^(sql_(?:select|insert|update|delete)_count|txn_commits) \S+$/gm,
        (_, name: string) => `${name} ${(scrapes++ * 137 + n.id * 1000).toFixed(1)}`,
      ),
    }));
  }),
);
const cgRoot = makeFakeV2Tree(19); // postgresql.service + 19 services = 20 under system.slice
const sink = await startFakeIngest({ token: 'bench-token' });
const work = mkdtempSync(join(tmpdir(), 'agent-bench-'));
const configPath = join(work, 'agent.yaml');
writeFileSync(
  configPath,
  [
    `url: ${sink.url}`,
    'token: bench-token',
    'cluster: bench',
    `interval: ${interval}`,
    'outbox:',
    `  dir: ${join(work, 'outbox')}`,
    'metrics:',
    '  listen: 127.0.0.1:0',
    'inputs:',
    '  cockroachdb:',
    `    urls: [${crdbs.map((c) => c.url).join(', ')}]`,
    '    cli: { enabled: false }',
    ...(process.env.BENCH_PROMETHEUS === '0' ? ['  prometheus: false'] : []),
    ...(process.env.BENCH_PROMETHEUS === 'none' ? ['  prometheus: { default_allowlist: false }'] : []),
    '  cgroup:',
    `    root: ${cgRoot}`,
    '    targets: [{ children_of: /system.slice }]',
    '    devices_dir: false',
    '  host:',
    '    disks: [/]',
    '',
  ].join('\n'),
);

const child = spawn(process.execPath, [...nodeFlags, agentJs, '--config', configPath], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
let stderr = '';
child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));

const clk = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const cpuTicks = () => {
  const f = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
  const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return Number(parts[11]) + Number(parts[12]); // utime + stime (fields 14, 15)
};
const rssKb = () =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);

// Exclude start-up (module load, first collection) from the CPU figure: measure steady state.
await new Promise((r) => setTimeout(r, 2000));
let peak = rssKb();
const t0 = performance.now();
const c0 = cpuTicks();
const end = Date.now() + durationS * 1000;
while (Date.now() < end) {
  await new Promise((r) => setTimeout(r, 250));
  if (child.exitCode !== null) break;
  peak = Math.max(peak, rssKb());
}
const cpuS = (cpuTicks() - c0) / clk;
const wallS = (performance.now() - t0) / 1000;
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
const batches = sink.batches.size;
const all = [...sink.batches.values()].flatMap((b) => b.samples as { kind: string }[]);
const samples = all.length;
const metricSamples = all.filter((x) => x.kind === 'metric').length;
await Promise.all([sink.close(), ...crdbs.map((c) => c.close())]);
rmSync(cgRoot, { recursive: true, force: true });
rmSync(work, { recursive: true, force: true });
if (batches === 0) {
  console.error(`agent delivered nothing; stderr:\n${stderr}`);
  process.exit(1);
}
console.log(
  JSON.stringify({
    peak_rss_mb: Math.round((peak / 1024) * 10) / 10,
    cpu_pct_of_core: Math.round((cpuS / wallS) * 100 * 1000) / 1000,
    batches,
    samples,
    metric_samples: metricSamples,
    vars_targets: crdbs.length,
    vars_lines: varsText.split('\n').length,
    duration_s: Math.round(wallS),
    interval,
    node_flags: nodeFlags.join(' '),
  }),
);
