/**
 * The installed agent is one file: a copy of dist/agent.js alone in an empty directory (no node_modules, no
 * sources next to it) runs with `jobs.enabled` and long-polls the server for jobs.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listenOnLoopback } from './loopback';
import { buildAgent, spawnAgent, waitFor, writeConfig } from './agent-process';
import { tempDir } from './temp';

const seen: string[] = [];
let server: http.Server;
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  // Stand-in for the server: accepts ingest, answers a job poll with "no job".
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(`${req.method} ${req.url?.split('?')[0]}`);
      res.writeHead(req.url === '/api/v1/ingest' ? 202 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.url?.startsWith('/api/v1/agent/jobs') ? { job: null } : {}));
    });
  });
  ({ url, close } = await listenOnLoopback(server));
});
afterAll(() => close());

it('dist/agent.js copied alone into an empty directory runs with jobs enabled', async () => {
  const dir = tempDir('cs-agent-alone');
  const opt = join(dir, 'opt');
  mkdirSync(opt);
  copyFileSync(buildAgent(), join(opt, 'agent.js'));
  const cfg = writeConfig(
    dir,
    [
      `url: ${url}`,
      'token: t',
      'cluster: c',
      'host: alone',
      'interval: 1s',
      `outbox: { dir: ${join(dir, 'state/outbox')} }`,
      'metrics: { listen: false }',
      'inputs: { cockroachdb: false, prometheus: false, cgroup: false }',
      'jobs:',
      '  enabled: true',
      '  wait: 1s',
      '',
    ].join('\n'),
  );
  const p = spawnAgent(join(opt, 'agent.js'), ['--config', cfg]);
  try {
    await waitFor(
      () => seen.includes('GET /api/v1/agent/jobs') || p.child.exitCode !== null,
      30_000,
      'a job poll',
    );
    expect(p.child.exitCode, JSON.stringify(p.logs())).toBeNull();
    expect(p.logs().some((l) => l.msg === 'job loop started')).toBe(true);
  } finally {
    p.child.kill('SIGTERM');
    await p.exited;
  }
}, 90_000);

it('a config error in the built agent names the key (no zod locale in the bundle)', async () => {
  const dir = tempDir('cs-agent-typo');
  const cfg = writeConfig(
    dir,
    [
      `url: ${url}`,
      'token: t',
      'intervall: 10s',
      'inputs: { cgroup: { root: 5 } }',
      'jobs: { enabled: "yes" }',
      '',
    ].join('\n'),
  );
  const p = spawnAgent(buildAgent(), ['--config', cfg]);
  expect(await p.exited).toBe(2);
  const text = p
    .logs()
    .map((l) => l.msg)
    .join('\n');
  expect(text).toContain(`${cfg}: intervall: unknown key`);
  expect(text).toContain(`${cfg}: inputs.cgroup.root: must be a string`);
  expect(text).toContain(`${cfg}: jobs.enabled: must be a boolean`);
  expect(text).not.toContain('(top level)');
}, 60_000);
