/**
 * Delivery scenarios against an ingest endpoint. The sink is injectable: the fake below now, the
 * real app's POST /api/v1/ingest later (provide start/stop and a way to read accepted batches).
 */
import { join } from 'node:path';
import type { TIngestBatch, TSample } from '@clusterscope/schema';
import { silentLogger } from '../src/lib/log';
import { Outbox } from '../src/outbox';
import { makeFakeV2Tree } from './cgroup-fixture';
import { spawnAgent, waitFor, writeConfig, type AgentProcess } from './agent-process';
import { tempDir } from './temp';

export interface Sink {
  url: string;
  token: string;
  /** Accepted batches, deduplicated by batchId. */
  accepted(): Map<string, TIngestBatch>;
  requests(): number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Make the next requests hang for `ms` before the answer (optional). */
  setDelay?(ms: number): void;
  onRequest?(fn: (() => void) | undefined): void;
}

export interface ScenarioResult {
  enqueued: string[];
  accepted: Map<string, TIngestBatch>;
  pendingAfter: number;
  duplicateSamples: number;
}

const sampleKey = (s: TSample): string => {
  switch (s.kind) {
    case 'cgroup_usage':
      return `${s.kind}|${s.host}|${s.cgroup}|${s.ts}`;
    case 'host_metrics':
    case 'heartbeat':
      return `${s.kind}|${s.host}|${s.ts}`;
    case 'node_status':
      return `${s.kind}|${s.node_id}|${s.ts}`;
    default:
      return `${s.kind}|${s.ts}|${JSON.stringify(s)}`;
  }
};

function agentYaml(sink: Sink, outboxDir: string, cgRoot: string, intervalMs: number): string {
  return [
    `url: ${sink.url}`,
    `token: ${sink.token}`,
    'cluster: test',
    'host: itest',
    `interval: ${intervalMs}ms`,
    'log_level: debug',
    'outbox:',
    `  dir: ${outboxDir}`,
    'delivery:',
    '  timeout: 5s',
    '  backoff_initial: 50ms',
    '  backoff_max: 400ms',
    'metrics: { listen: false }',
    'inputs:',
    '  cgroup:',
    `    root: ${cgRoot}`,
    '    devices_dir: false',
    '  host: { disks: [/] }',
    '',
  ].join('\n');
}

function summarize(agents: AgentProcess[], sink: Sink, outboxDir: string): ScenarioResult {
  const enqueued = agents.flatMap((a) =>
    a
      .logs()
      .filter((l) => l.msg === 'batch enqueued')
      .map((l) => String(l.batchId)),
  );
  const ob = new Outbox({ dir: outboxDir, maxBytes: 1 << 30, segmentBytes: 1 << 20, logger: silentLogger });
  ob.open();
  const pendingAfter = ob.stats().pending;
  ob.close();
  const seen = new Set<string>();
  let duplicateSamples = 0;
  for (const b of sink.accepted().values()) {
    for (const s of b.samples) {
      const k = sampleKey(s);
      if (seen.has(k)) duplicateSamples++;
      seen.add(k);
    }
  }
  return { enqueued, accepted: sink.accepted(), pendingAfter, duplicateSamples };
}

async function stopAgent(a: AgentProcess): Promise<void> {
  a.child.kill('SIGTERM');
  await a.exited;
}

/** Server down for `downIntervals` intervals while the agent keeps collecting; then back. */
export async function runOutageScenario(
  agentJs: string,
  sink: Sink,
  intervalMs = 200,
  downIntervals = 5,
): Promise<ScenarioResult> {
  const work = tempDir('agent-outage');
  const outboxDir = join(work, 'outbox');
  const cfg = writeConfig(work, agentYaml(sink, outboxDir, makeFakeV2Tree(2), intervalMs));
  const agent = spawnAgent(agentJs, ['--config', cfg]);
  const enq = () => agent.logs().filter((l) => l.msg === 'batch enqueued').length;
  await waitFor(() => sink.accepted().size >= 3, 15_000, 'first batches');
  await sink.stop();
  const before = enq();
  await waitFor(
    () => enq() >= before + downIntervals,
    15_000,
    `${downIntervals} intervals collected during the outage`,
  );
  await sink.start();
  const target = enq() + 2;
  await waitFor(() => enq() >= target, 15_000, 'collection after the outage');
  const want = () =>
    agent
      .logs()
      .filter((l) => l.msg === 'batch enqueued')
      .map((l) => String(l.batchId));
  await waitFor(() => want().every((id) => sink.accepted().has(id)), 20_000, 'replay of every batch');
  await stopAgent(agent);
  await waitFor(() => want().every((id) => sink.accepted().has(id)), 5_000, 'final batches');
  return summarize([agent], sink, outboxDir);
}

/** kill -9 the agent while a send is in flight; restart on the same outbox; verify. */
export async function runKillScenario(
  agentJs: string,
  sink: Sink,
  intervalMs = 200,
): Promise<ScenarioResult & { killedDuringSend: boolean }> {
  const work = tempDir('agent-kill');
  const outboxDir = join(work, 'outbox');
  const cfg = writeConfig(work, agentYaml(sink, outboxDir, makeFakeV2Tree(2), intervalMs));
  const first = spawnAgent(agentJs, ['--config', cfg]);
  await waitFor(() => sink.accepted().size >= 3, 15_000, 'first batches');
  // Hold answers so the agent is mid-send, and SIGKILL it as soon as a request arrives.
  let killedDuringSend = false;
  sink.setDelay?.(2000);
  sink.onRequest?.(() => {
    if (!killedDuringSend) {
      killedDuringSend = first.child.kill('SIGKILL');
    }
  });
  await first.exited;
  sink.onRequest?.(undefined);
  sink.setDelay?.(0);
  const second = spawnAgent(agentJs, ['--config', cfg]);
  const want = () =>
    [first, second].flatMap((a) =>
      a
        .logs()
        .filter((l) => l.msg === 'batch enqueued')
        .map((l) => String(l.batchId)),
    );
  const secondEnq = () => second.logs().filter((l) => l.msg === 'batch enqueued').length;
  await waitFor(() => secondEnq() >= 3, 15_000, 'collection after restart');
  await waitFor(() => want().every((id) => sink.accepted().has(id)), 20_000, 'replay after restart');
  await stopAgent(second);
  return { ...summarize([first, second], sink, outboxDir), killedDuringSend };
}
