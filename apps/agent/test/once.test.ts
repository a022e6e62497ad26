/** `clusterscope-agent --once` against a CockroachDB endpoint that answers HTML instead of JSON. */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback } from './loopback';
import { buildAgent, spawnAgent, writeConfig } from './agent-process';
import { makeStatusNodes, storeMetrics } from './cockroach-fixture';
import { startFakeIngest } from './fake-ingest';

let agentJs: string;
let work: string;
beforeAll(() => {
  agentJs = buildAgent();
  work = mkdtempSync(join(tmpdir(), 'agent-once-'));
}, 60_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function serve(body: () => string, type: string) {
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/health')) return res.end('{}');
    res.writeHead(200, { 'content-type': type });
    res.end(body());
  });
  return listenOnLoopback(server);
}

async function runOnce(crdbUrl: string, name: string) {
  const sink = await startFakeIngest({ token: 't' });
  const cfg = writeConfig(
    mkdtempSync(join(work, name)),
    [
      `url: ${sink.url}`,
      'token: t',
      'cluster: c',
      `outbox: { dir: ${join(work, name + '-outbox')} }`,
      'metrics: { listen: false }',
      'inputs:',
      `  cockroachdb: { urls: [${crdbUrl}], cli: { enabled: false } }`,
      '  prometheus: false',
      '  cgroup: false',
      '',
    ].join('\n'),
  );
  const p = spawnAgent(agentJs, ['--once', '--config', cfg]);
  const code = await p.exited;
  await sink.close();
  return { code, logs: p.logs() };
}

describe('agent --once', () => {
  it('logs the endpoint of a non-JSON answer and exits non-zero when an enabled input produced nothing', async () => {
    const html = await serve(() => '<html><body>Sign in</body></html>', 'text/html');
    const { code, logs } = await runOnce(html.url, 'html');
    await html.close();
    expect(code).toBe(1);
    const bad = logs.find((l) => l.msg === 'cockroachdb: response is not valid JSON');
    expect(bad).toMatchObject({ url: `${html.url}/_status/nodes`, content_type: 'text/html' });
    expect(String(bad?.start)).toContain('<html>');
    expect(logs.find((l) => l.msg === 'enabled inputs produced nothing')).toMatchObject({
      inputs: ['cockroachdb'],
    });
  }, 60_000);

  it('exits 0 when every enabled input produced samples', async () => {
    const nodes = [{ id: 1, liveness: 3, expiresInMs: 4500, stores: [storeMetrics(1)] }];
    const ok = await serve(() => JSON.stringify(makeStatusNodes(nodes, Date.now())), 'application/json');
    const { code, logs } = await runOnce(ok.url, 'ok');
    await ok.close();
    expect(logs.filter((l) => l.level === 'error')).toEqual([]);
    expect(code).toBe(0);
  }, 60_000);
});
