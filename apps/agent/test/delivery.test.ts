/** Delivery end to end: real agent processes against a fake ingest server. */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildAgent } from './agent-process';
import { runKillScenario, runOutageScenario, type Sink } from './delivery-scenarios';
import { startFakeIngest, type FakeIngest } from './fake-ingest';

/** The fake ingest server as a restartable Sink on a fixed port. */
async function fakeSink(): Promise<Sink & { fake: () => FakeIngest }> {
  let fake = await startFakeIngest({ token: 'itest-token' });
  const port = fake.port;
  const accepted = fake.batches;
  let requests = 0;
  let delay = 0;
  let hook: (() => void) | undefined;
  const wire = () => {
    fake.batches = accepted; // accepted batches survive a restart, like a database
    fake.delayMs = delay;
    fake.onRequest = () => hook?.();
  };
  wire();
  return {
    url: fake.url,
    token: 'itest-token',
    accepted: () => accepted,
    requests: () => requests + fake.requests,
    stop: async () => {
      requests += fake.requests;
      await fake.close();
    },
    start: async () => {
      fake = await startFakeIngest({ token: 'itest-token', port });
      wire();
    },
    setDelay: (ms) => {
      delay = ms;
      fake.delayMs = ms;
    },
    onRequest: (fn) => {
      hook = fn;
    },
    fake: () => fake,
  };
}

let sinks: (Sink & { fake: () => FakeIngest })[] = [];
let agentJs: string;
beforeAll(() => {
  agentJs = buildAgent();
}, 60_000);
afterEach(async () => {
  for (const s of sinks) await s.stop().catch(() => undefined);
  sinks = [];
});

describe('agent delivery', () => {
  it('loses and duplicates nothing across a server outage of 5 intervals', async () => {
    const sink = await fakeSink();
    sinks.push(sink);
    const r = await runOutageScenario(agentJs, sink, 200, 5);
    expect(r.enqueued.length).toBeGreaterThanOrEqual(10);
    expect(r.enqueued.filter((id) => !r.accepted.has(id))).toEqual([]);
    expect(r.accepted.size).toBe(r.enqueued.length);
    expect(r.pendingAfter).toBe(0);
    expect(r.duplicateSamples).toBe(0);
  }, 90_000);

  it('survives kill -9 during a send: replays on restart, duplicates only by batchId', async () => {
    const sink = await fakeSink();
    sinks.push(sink);
    const r = await runKillScenario(agentJs, sink, 200);
    expect(r.killedDuringSend).toBe(true);
    expect(r.enqueued.filter((id) => !r.accepted.has(id))).toEqual([]);
    expect(r.pendingAfter).toBe(0);
    // The in-flight batch was committed but never acknowledged: resent with the same batchId.
    expect(sink.fake().duplicates).toBeGreaterThanOrEqual(1);
    expect(r.duplicateSamples).toBe(0);
  }, 90_000);
});
