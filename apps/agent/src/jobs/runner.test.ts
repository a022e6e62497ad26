/** The job loop hands tools the directory confinement checked: symlinks resolved (a fake fio, a stand-in server). */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listenOnLoopback } from '../../test/loopback';
import { tempDir } from '../../test/temp';
import { silentLogger } from '../lib/log';
import { JobLoop } from './runner';
import { resolveJobsConfig, ZJobsConfig } from './config';

const received: { path: string; body: Record<string, unknown> }[] = [];
let server: http.Server;
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (d) => (data += d));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: data ? JSON.parse(data) : {} });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ cancelRequested: false }));
    });
  });
  ({ url, close } = await listenOnLoopback(server));
});
afterAll(() => close());

/** A job loop against the stand-in server that finds its tools in `bin`. */
const loopOf = (config: ReturnType<typeof resolveJobsConfig>, bin: string) =>
  new JobLoop({
    url,
    token: 't',
    agentName: 'a1',
    config,
    logger: silentLogger,
    pathEnv: bin,
    enqueueSamples: () => undefined,
    drain: async () => true,
  });

it('a target through a symlink inside allowed_dirs reaches the tool as its real path', async () => {
  const root = tempDir('cs-runner');
  const work = join(root, 'work');
  mkdirSync(join(work, 'real'), { recursive: true });
  symlinkSync(join(work, 'real'), join(work, 'link'));
  const bin = join(root, 'bin');
  mkdirSync(bin);
  // A stand-in fio: prints where it was told to write.
  writeFileSync(join(bin, 'fio'), '#!/bin/sh\nfor a in "$@"; do echo "arg $a"; done\n');
  chmodSync(join(bin, 'fio'), 0o755);

  const config = resolveJobsConfig({
    jobs: ZJobsConfig.parse({ enabled: true, work_dir: work, allowed_dirs: [work], grace: '1s' }),
    outbox: { dir: join(root, 'outbox') },
    inputs: {},
  });
  const loop = loopOf(config, bin);
  const status = await loop.runJob({
    id: 'r1',
    tool: 'fio',
    params: {},
    target: join(work, 'link'),
    durationS: 1,
    warmupS: 0,
    workload: 'w',
    timeoutS: 30,
    leaseS: 30,
  });
  expect(status).toBe('succeeded');
  const output = String(received.find((r) => r.path.endsWith('/output'))?.body.output);
  expect(output).toContain(`arg --directory=${join(work, 'real')}\n`);
  expect(output).not.toContain('/link');
});

it('runs the tool under jobs.exec_prefix (e.g. systemd-run --scope, outside the agent cgroup)', async () => {
  const root = tempDir('cs-runner-prefix');
  const bin = join(root, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'fio'), '#!/bin/sh\necho "fio ran"\n');
  writeFileSync(join(root, 'wrap'), '#!/bin/sh\necho "wrapped: $1"\nexec "$@"\n');
  chmodSync(join(bin, 'fio'), 0o755);
  chmodSync(join(root, 'wrap'), 0o755);
  const config = resolveJobsConfig({
    jobs: ZJobsConfig.parse({
      enabled: true,
      work_dir: join(root, 'work'),
      exec_prefix: [join(root, 'wrap')],
    }),
    outbox: { dir: join(root, 'outbox') },
    inputs: {},
  });
  received.length = 0;
  const loop = loopOf(config, bin);
  const job = { id: 'r2', tool: 'fio' as const, params: {}, target: '', durationS: 1, warmupS: 0 };
  expect(await loop.runJob({ ...job, workload: 'w', timeoutS: 30, leaseS: 30 })).toBe('succeeded');
  const output = String(received.find((r) => r.path.endsWith('/output'))?.body.output);
  expect(output).toBe(`wrapped: ${join(bin, 'fio')}\nfio ran\n`);
  expect(() => ZJobsConfig.parse({ exec_prefix: ['systemd-run'] })).toThrow(/absolute path/);
});
