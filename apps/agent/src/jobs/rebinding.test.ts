import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlan, pinAddress, type TJobSpec } from './argv';
import { confineHost } from './confine';

// DNS rebinding with the real hey and wrk: the name answers 127.0.0.2 when the agent checks it and 127.0.0.1
// (the system's /etc/hosts answer for localhost) when a tool would look it up again. The tool must load the
// checked server, never the other one.
const run = promisify(execFile);

let checked: Server;
let rebound: Server;
let seen = { checked: [] as string[], rebound: 0 };
let port = 0;
const listen = (s: Server, host: string, p: number) =>
  new Promise<number>((r) => s.listen(p, host, () => r((s.address() as AddressInfo).port)));

beforeAll(async () => {
  checked = createServer((req, res) => {
    seen.checked.push(req.headers.host ?? '');
    res.end('ok');
  });
  rebound = createServer((_, res) => {
    seen.rebound++;
    res.end('inside');
  });
  port = await listen(checked, '127.0.0.2', 0);
  await listen(rebound, '127.0.0.1', port);
});
afterAll(() => {
  checked.close();
  rebound.close();
});

/** The check's resolver: the answer the agent judged. */
const atCheck = async () => ['127.0.0.2'];

async function argvFor(tool: 'hey' | 'wrk', params: Record<string, unknown>): Promise<string[]> {
  const job: TJobSpec = {
    id: 'r1',
    tool,
    params,
    target: `http://localhost:${port}/x`,
    durationS: 1,
    warmupS: 0,
  };
  const limits = { allowedDirs: ['/tmp'], allowedHosts: ['localhost'], maxFileBytes: 1 };
  const plan = buildPlan(job, { secrets: {}, workDir: '/tmp', limits, secretDir: '/tmp/.s' });
  const address = await confineHost(job.target, limits.allowedHosts, atCheck);
  return pinAddress(plan, address).steps.find((s) => s.phase === 'main')!.argv;
}

describe('HTTP tools connect to the address that was checked', () => {
  it('hey: the checked address, with the original Host header', async () => {
    seen = { checked: [], rebound: 0 };
    const argv = await argvFor('hey', { requests: 10, concurrency: 2 });
    await run('hey', argv.slice(1), { timeout: 30_000 });
    expect(seen.rebound).toBe(0);
    expect(seen.checked).toEqual(Array(10).fill(`localhost:${port}`));
  });

  it('wrk: the checked address, with the original Host header', async () => {
    seen = { checked: [], rebound: 0 };
    const argv = await argvFor('wrk', { threads: 1, connections: 1 });
    await run('wrk', argv.slice(1), { timeout: 30_000 });
    expect(seen.rebound).toBe(0);
    expect(seen.checked.length).toBeGreaterThan(0);
    expect(new Set(seen.checked)).toEqual(new Set([`localhost:${port}`]));
  }, 30_000);
});

describe('pinAddress', () => {
  const plan = (tool: 'hey' | 'wrk' | 'pgbench', target: string) =>
    buildPlan(
      { id: 'r1', tool, params: {}, target, durationS: 1, warmupS: 1 },
      {
        secrets: {},
        workDir: '/tmp',
        limits: { allowedDirs: ['/tmp'], allowedHosts: ['*'], maxFileBytes: 1 },
        secretDir: '/tmp/.s',
      },
    );

  it('pins every step of an http URL, IPv6 in brackets, the port kept in Host', () => {
    const p = pinAddress(plan('wrk', 'http://db.example:8080/a?b=1'), '2001:db8::5');
    expect(p.steps.map((s) => s.argv.slice(-3))).toEqual([
      ['-H', 'Host: db.example:8080', 'http://[2001:db8::5]:8080/a?b=1'],
      ['-H', 'Host: db.example:8080', 'http://[2001:db8::5]:8080/a?b=1'],
    ]);
  });

  it('leaves https (SNI, certificate), IP literals and other tools as they are', () => {
    for (const p of [plan('hey', 'https://db.example/'), plan('pgbench', 'postgresql://u@db.example/d')])
      expect(pinAddress(p, '192.0.2.1')).toEqual(p);
    const literal = plan('hey', 'http://192.0.2.1/');
    expect(pinAddress(literal, null)).toEqual(literal);
  });
});
