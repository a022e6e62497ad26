import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ZHeartbeatSample, type THeartbeatSample } from '@clusterscope/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from './agent';
import { ZAgentConfig } from './config';
import { createLogger } from './lib/log';

// A CockroachDB stand-in on loopback that refuses every status request with 503.
let server: Server;
let port = 0;
const dir = mkdtempSync(join(tmpdir(), 'cs-agent-inputs-'));
beforeAll(async () => {
  server = createServer((_, res) => res.writeHead(503).end('node is not ready'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

function heartbeats(agent: Agent): THeartbeatSample[] {
  const out: THeartbeatSample[] = [];
  for (let r = agent.outbox.peek(); r; r = agent.outbox.peek()) {
    const batch = JSON.parse(gunzipSync(r.body).toString('utf8')) as { samples: { kind: string }[] };
    for (const s of batch.samples) if (s.kind === 'heartbeat') out.push(ZHeartbeatSample.parse(s));
    agent.outbox.ack(r);
  }
  return out;
}

describe('agent heartbeat input states', () => {
  it('reports a failing input with a one-line error without credentials, since when and how many in a row', async () => {
    const config = ZAgentConfig.parse({
      url: 'http://127.0.0.1:1',
      token: 'cs_test',
      host: 'db-1',
      outbox: { dir },
      metrics: { listen: false },
      inputs: {
        cockroachdb: {
          urls: [`http://root:pw-s3cret@127.0.0.1:${port}`],
          headers: { cookie: 'session=Zq9Kk' },
        },
        cgroup: false,
        host: false,
        prometheus: false,
      },
    });
    const agent = new Agent({ config, logger: createLogger('error') });
    agent.open();
    const t0 = Date.now();
    for (let i = 0; i < 3; i++) await agent.collectOnce(t0 + i * 10_000);
    const hbs = heartbeats(agent);
    expect(hbs).toHaveLength(3);
    const crdb = hbs.map((h) => h.inputs?.find((i) => i.input === 'cockroachdb'));
    expect(crdb.map((i) => i?.failures)).toEqual([1, 2, 3]);
    expect(crdb[2]).toMatchObject({ state: 'failing', since: t0 });
    expect(crdb[2]!.error).toContain(`127.0.0.1:${port}`);
    expect(crdb[2]!.error).not.toMatch(/pw-s3cret|Zq9Kk|\n/);
    expect(hbs[2].inputs?.find((i) => i.input === 'heartbeat')).toMatchObject({ state: 'ok', failures: 0 });
    agent.outbox.close();
  });
});
