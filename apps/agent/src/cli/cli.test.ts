import http from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../../test/loopback';
import { capture } from '../../test/io';
import { ApiClient, ApiError } from './api-client';
import { detectToolFromArgv, gitInfo, parseLabels, requireServer, UsageError } from './common';
import { runBenchmark } from './run';
import { submitOutput } from './submit';
import { readEnv } from '../env';
import { makeReport } from './report.test-helper';

interface Call {
  method: string;
  url: string;
  body: unknown;
  at: number;
}

/** Fake of the runs REST API; `regression` controls the compare verdict. */
async function startFakeApi(
  opts: { regression?: boolean; outputStatus?: number; failSamples?: number } = {},
) {
  const calls: Call[] = [];
  let samplesFailures = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : undefined;
      calls.push({ method: req.method!, url: req.url!, body, at: Date.now() });
      const send = (status: number, b: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(b));
      };
      if (req.headers.authorization !== 'Bearer t0k') return send(401, { error: 'bad token' });
      if (req.method === 'POST' && req.url === '/api/v1/runs') return send(201, { id: 'run_1' });
      if (req.url === '/api/v1/runs/run_1/samples')
        return samplesFailures++ < (opts.failSamples ?? 0)
          ? send(503, { error: 'answer lost' })
          : send(202, {});
      if (req.url === '/api/v1/runs/run_1/output')
        return opts.outputStatus
          ? send(opts.outputStatus, { error: 'unrecognised' })
          : send(200, { summary: [{ name: 'tps', value: 1, unit: 'tx/s', direction: 'higher' }] });
      if (req.url === '/api/v1/runs/run_1/results') return send(202, {});
      if (req.url === '/api/v1/runs/run_1/finish') return send(200, {});
      if (req.url?.startsWith('/api/v1/runs/run_1/report?format=json'))
        return send(200, makeReport(opts.regression ?? false));
      send(404, { error: 'no route' });
    });
  });
  return { ...(await listenOnLoopback(server)), calls };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** The fake API (closed after the test), a client of it and captured stdout/stderr. */
async function setup(opts: Parameters<typeof startFakeApi>[0] = {}) {
  const api = await startFakeApi(opts);
  close = api.close;
  return { api, cap: capture(), client: new ApiClient(api.url, 't0k') };
}

/** `clusterscope run` options for a short sysbench cpu run, with `over` on top. */
const cpuRun = (over: Partial<Parameters<typeof runBenchmark>[1]> = {}) => ({
  cluster: 'ci',
  workload: 'cpu',
  tool: 'sysbench' as const,
  labels: {},
  failOnRegression: false,
  argv: ['sysbench', 'cpu', '--time=3', '--report-interval=1', '--threads=1', 'run'],
  sampleEveryMs: 300,
  ...over,
});

describe('clusterscope run', () => {
  it('retries a live-sample chunk unchanged under the same batchId (a lost answer never duplicates)', async () => {
    const { api, cap, client } = await setup({ failSamples: 1 });
    const code = await runBenchmark(client, cpuRun(), cap.io);
    expect(code).toBe(0);
    type TPost = { batchId: string; samples: { elapsed_s: number }[] };
    const posts = api.calls.filter((c) => c.url.endsWith('/samples')).map((c) => c.body as TPost);
    expect(posts.length).toBeGreaterThanOrEqual(2);
    expect(posts[1]).toEqual(posts[0]); // the failed chunk, resent as is
    const byId = new Map(posts.map((p) => [p.batchId, p.samples.map((x) => x.elapsed_s)]));
    const printed = [...cap.out().matchAll(/^\[ (\d+)s \]/gm)].map((m) => Number(m[1]));
    expect([...byId.values()].flat()).toEqual(printed);
    expect(cap.err()).toMatch(/posting live samples failed \(will retry\)/);
  }, 20_000);

  it('runs real sysbench, streams live samples, posts output and finishes with its exit code', async () => {
    const { api, cap, client } = await setup();
    const code = await runBenchmark(
      client,
      cpuRun({
        tool: detectToolFromArgv(['sysbench']),
        labels: { pr: '42' },
        failOnRegression: true,
        baseline: 'main',
      }),
      cap.io,
    );
    expect(code).toBe(0);
    expect(cap.out()).toMatch(/\[ 1s \] thds: 1 eps:/); // passed through
    const routes = api.calls.map((c) => `${c.method} ${c.url.replace(/\?.*/, '')}`);
    expect(routes[0]).toBe('POST /api/v1/runs');
    expect(api.calls[0].body).toMatchObject({
      cluster: 'ci',
      workload: 'cpu',
      tool: 'sysbench',
      labels: { pr: '42' },
    });
    const samplePosts = api.calls.filter((c) => c.url.endsWith('/samples'));
    // Live: the first samples arrive while the tool still runs (before /output).
    const outputAt = api.calls.find((c) => c.url.endsWith('/output'))!.at;
    expect(samplePosts.length).toBeGreaterThanOrEqual(2);
    expect(samplePosts[0].at).toBeLessThan(outputAt - 500);
    const posted = samplePosts.flatMap(
      (c) => (c.body as { samples: { elapsed_s: number; values: Record<string, number> }[] }).samples,
    );
    // Each interval line the tool printed was posted exactly once, in order.
    const printed = [...cap.out().matchAll(/^\[ (\d+)s \]/gm)].map((m) => Number(m[1]));
    expect(printed.length).toBeGreaterThanOrEqual(2);
    expect(posted.map((s) => s.elapsed_s)).toEqual(printed);
    expect(posted[0].values).toHaveProperty('events_per_s');
    expect(api.calls.find((c) => c.url.endsWith('/output'))!.body).toMatchObject({
      tool: 'sysbench',
      output: expect.stringContaining('events per second'),
    });
    expect(api.calls.find((c) => c.url.endsWith('/finish'))!.body).toEqual({
      status: 'succeeded',
      exitCode: 0,
    });
    expect(api.calls.at(-1)!.url).toBe('/api/v1/runs/run_1/report?format=json&baseline=main');
    // The terminal shows the server's report text as is.
    expect(cap.err()).toContain(makeReport(false).text);
  }, 30_000);

  it('exits 3 on a regression', async () => {
    const { cap, client } = await setup({ regression: true });
    const code = await runBenchmark(
      client,
      cpuRun({
        failOnRegression: true,
        argv: ['sysbench', 'cpu', '--time=1', 'run'],
        sampleEveryMs: undefined,
      }),
      cap.io,
    );
    expect(code).toBe(3);
    expect(cap.err()).toMatch(/regression/);
  }, 30_000);

  it('passes --verdict-metrics to the comparison', async () => {
    const { api, cap, client } = await setup();
    const code = await runBenchmark(
      client,
      cpuRun({
        failOnRegression: true,
        verdictMetrics: ['tps', 'latency'],
        argv: ['sysbench', 'cpu', '--time=1', 'run'],
        sampleEveryMs: undefined,
      }),
      cap.io,
    );
    expect(code).toBe(0);
    expect(api.calls.at(-1)!.url).toBe('/api/v1/runs/run_1/report?format=json&verdictMetrics=tps%2Clatency');
  }, 30_000);

  it('propagates a failing tool exit code and a missing binary', async () => {
    const { api, cap, client } = await setup();
    const base = { cluster: 'ci', workload: 'x', labels: {}, failOnRegression: true };
    expect(await runBenchmark(client, { ...base, argv: ['sh', '-c', 'echo boom >&2; exit 7'] }, cap.io)).toBe(
      7,
    );
    expect(cap.err()).toContain('boom');
    expect(api.calls.filter((c) => c.url.endsWith('/finish')).at(-1)!.body).toEqual({
      status: 'failed',
      exitCode: 7,
    });
    // A failed run still gets its report (the URLs), but never exit 3.
    expect(api.calls.some((c) => c.url.includes('/report'))).toBe(true);
    expect(await runBenchmark(client, { ...base, argv: ['/nonexistent/tool'] }, cap.io)).toBe(127);
    expect(cap.err()).toContain('"/nonexistent/tool" not found on PATH');
  });
});

describe('clusterscope submit', () => {
  const output = readFileSync(
    fileURLToPath(new URL('../../test/fixtures/sysbench_oltp_write_only_pgsql.txt', import.meta.url)),
    'utf8',
  );

  it('creates a run, posts the output and finishes it', async () => {
    const { api, cap, client } = await setup();
    const code = await submitOutput(
      client,
      {
        cluster: 'ci',
        workload: 'oltp_write_only',
        labels: {},
        failOnRegression: false,
        output,
        source: 'out.txt',
      },
      cap.io,
    );
    expect(code).toBe(0);
    expect(api.calls.map((c) => c.url)).toEqual([
      '/api/v1/runs',
      '/api/v1/runs/run_1/output',
      '/api/v1/runs/run_1/finish',
      '/api/v1/runs/run_1/report?format=json',
    ]);
    expect(cap.err()).toContain('compare: https://cs.example.com/acme/compare?runs=run_1&baseline=main');
    expect(api.calls[0].body).toMatchObject({ tool: 'sysbench' });
    expect(cap.out()).toMatch(/run run_1: sysbench/);
  });

  it('falls back to /results on 422 and rejects unreadable output before creating a run', async () => {
    const { api, cap, client } = await setup({ outputStatus: 422 });
    const base = { cluster: 'ci', workload: 'w', labels: {}, failOnRegression: false, source: 'f.txt' };
    expect(await submitOutput(client, { ...base, output }, cap.io)).toBe(0);
    expect(api.calls.map((c) => c.url)).toContain('/api/v1/runs/run_1/results');
    const n = api.calls.length;
    expect(await submitOutput(client, { ...base, output: 'hello world\n' }, cap.io)).toBe(1);
    expect(cap.err()).toMatch(/f\.txt: unrecognised benchmark output/);
    expect(api.calls.length).toBe(n);
  });

  it('shows HTTP error bodies with a hint', async () => {
    const { api } = await setup();
    const err = await new ApiClient(api.url, 'wrong')
      .createRun({ cluster: 'c', workload: 'w' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as Error).message).toMatch(/HTTP 401: \{"error":"bad token"\}\n.*CLUSTERSCOPE_TOKEN/);
  });
});

describe('cli helpers', () => {
  it('detects tools from argv', () => {
    expect(detectToolFromArgv(['/usr/bin/pgbench', '-T', '5'])).toBe('pgbench');
    expect(detectToolFromArgv(['cockroach', 'workload', 'run', 'tpcc'])).toBe('cockroach-workload');
    expect(detectToolFromArgv(['cockroach', 'sql'])).toBeUndefined();
    expect(detectToolFromArgv(['./mytool'])).toBeUndefined();
  });

  it('parses labels and names the bad one', () => {
    expect(parseLabels(['a=1', 'b=x=y'])).toEqual({ a: '1', b: 'x=y' });
    expect(() => parseLabels(['novalue'])).toThrow('--label "novalue" must be key=value');
  });

  it('says which env vars are missing', () => {
    expect(() => requireServer(readEnv({}))).toThrow(/CLUSTERSCOPE_URL and CLUSTERSCOPE_TOKEN are not set/);
    expect(() => requireServer(readEnv({ CLUSTERSCOPE_URL: 'nope', CLUSTERSCOPE_TOKEN: 'x' }))).toThrow(
      UsageError,
    );
  });

  it('reads git metadata from GitHub Actions', () => {
    expect(
      gitInfo(readEnv({ GITHUB_REPOSITORY: 'o/r', GITHUB_REF_NAME: 'main', GITHUB_SHA: 'abc' }), {}),
    ).toEqual({
      repo: 'https://github.com/o/r',
      branch: 'main',
      sha: 'abc',
    });
    expect(gitInfo(readEnv({}), {})).toBeUndefined();
  });

  it('keeps a branch given without repo and sha', () => {
    expect(gitInfo(readEnv({}), { branch: 'main' })).toEqual({ branch: 'main' });
  });
});

describe('clusterscope run --confirm', () => {
  const fixture = fileURLToPath(
    new URL('../../../../packages/bench/fixtures/pgbench_tpcb.txt', import.meta.url),
  );

  /**
   * A stand-in of the runs API that numbers runs and decides a suspect as the server does once its
   * confirmation runs are in: each confirmation run regresses again or not as `again` says.
   */
  async function startConfirmingApi(again: boolean[]) {
    const created: { id: string; body: Record<string, unknown> }[] = [];
    const finished = new Set<string>();
    const server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const send = (status: number, b: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(b));
        };
        if (req.method === 'POST' && req.url === '/api/v1/runs') {
          const id = `run_${created.length + 1}`;
          created.push({ id, body: JSON.parse(raw) });
          return send(201, { id });
        }
        const m = /^\/api\/v1\/runs\/(run_\d+)\/(\w+)/.exec(req.url ?? '');
        if (!m) return send(404, { error: 'no route' });
        const [, id, what] = m;
        if (what === 'finish') finished.add(id);
        if (what === 'output') return send(200, { summary: [] });
        if (what !== 'report') return send(200, {});
        const confs = created.filter((c) => c.body.confirms === 'run_1' && finished.has(c.id));
        const wanted = Number(created[0]!.body.confirm ?? 0);
        const miss = confs.findIndex((_, i) => !again[i]);
        const state: 'none' | 'suspected' | 'confirmed' | 'not_confirmed' =
          wanted === 0
            ? 'none'
            : miss >= 0
              ? 'not_confirmed'
              : confs.length >= wanted
                ? 'confirmed'
                : 'suspected';
        const confirmation =
          state === 'none' ? null : { state, wanted, metrics: ['tps'], runs: [], rule: 'r', note: state };
        send(200, makeReport(state === 'none' || state === 'confirmed', { run_id: id, confirmation }));
      });
    });
    const s = await listenOnLoopback(server);
    close = s.close;
    return { url: s.url, created };
  }

  const pgRun = {
    cluster: 'ci',
    workload: 'tpcb',
    tool: 'pgbench' as const,
    labels: {},
    failOnRegression: true,
  };

  it('runs the tool N more times as confirmation runs of the first and exits 3 once confirmed', async () => {
    const api = await startConfirmingApi([true, true]);
    const cap = capture();
    const code = await runBenchmark(
      new ApiClient(api.url, 't0k'),
      { ...pgRun, confirm: 2, argv: ['sh', '-c', `cat "${fixture}"`] },
      cap.io,
    );
    expect(code).toBe(3);
    expect(api.created.map((c) => [c.id, c.body.confirm, c.body.confirms])).toEqual([
      ['run_1', 2, undefined],
      ['run_2', undefined, 'run_1'],
      ['run_3', undefined, 'run_1'],
    ]);
    expect(cap.err()).toContain('suspected regression: confirmation run 2 of 2');
    expect(cap.err()).toContain('run run_1: regression confirmed');
  }, 30_000);

  it('stops at the first confirmation run that does not regress and exits 0 (not confirmed)', async () => {
    const api = await startConfirmingApi([false, true]);
    const cap = capture();
    const code = await runBenchmark(
      new ApiClient(api.url, 't0k'),
      { ...pgRun, confirm: 2, argv: ['sh', '-c', `cat "${fixture}"`] },
      cap.io,
    );
    expect(code).toBe(0);
    expect(api.created).toHaveLength(2);
    expect(cap.err()).toContain('run run_1: regression not confirmed');
  }, 30_000);
});
