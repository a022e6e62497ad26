import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlan, type TJobSpec } from './argv';
import { confineHost } from './confine';

// The real Debian hey and wrk against two loopback servers: the allowed one answers every request with a 302
// to the other, which must receive nothing.
const run = promisify(execFile);

let allowed: Server;
let elsewhere: Server;
let hits = { allowed: 0, elsewhere: 0 };
const port = (s: Server) => (s.address() as AddressInfo).port;
const listen = (s: Server) => new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));

beforeAll(async () => {
  elsewhere = createServer((_, res) => {
    hits.elsewhere++;
    res.end('secret');
  });
  await listen(elsewhere);
  allowed = createServer((_, res) => {
    hits.allowed++;
    res.writeHead(302, { location: `http://127.0.0.1:${port(elsewhere)}/inside` }).end();
  });
  await listen(allowed);
});
afterAll(() => {
  allowed.close();
  elsewhere.close();
});

const plan = (tool: 'hey' | 'wrk', params: Record<string, unknown>) => {
  const job: TJobSpec = {
    id: 'r1',
    tool,
    params,
    target: `http://127.0.0.1:${port(allowed)}/`,
    durationS: 1,
    warmupS: 0,
  };
  const limits = { allowedDirs: ['/tmp'], allowedHosts: [`127.0.0.1`], maxFileBytes: 1 };
  const steps = buildPlan(job, { secrets: {}, workDir: '/tmp', limits, secretDir: '/tmp/.s' }).steps;
  return steps.find((s) => s.phase === 'main')!.argv;
};

describe('HTTP tools stay on the host they were given', () => {
  it('hey does not follow a 302 to another host (-disable-redirects)', async () => {
    hits = { allowed: 0, elsewhere: 0 };
    const argv = plan('hey', { requests: 20, concurrency: 2 });
    expect(argv).toContain('-disable-redirects');
    const { stdout } = await run('hey', argv.slice(1), { timeout: 30_000 });
    expect(stdout).toMatch(/\[302\]\s+20 responses/);
    expect(hits).toEqual({ allowed: 20, elsewhere: 0 });
  });

  it('hey without the flag would have followed it (the check above can fail)', async () => {
    hits = { allowed: 0, elsewhere: 0 };
    const argv = plan('hey', { requests: 5, concurrency: 1 }).filter((a) => a !== '-disable-redirects');
    await run('hey', argv.slice(1), { timeout: 30_000 });
    expect(hits).toEqual({ allowed: 5, elsewhere: 5 });
  });

  it('wrk does not follow redirects', async () => {
    hits = { allowed: 0, elsewhere: 0 };
    const { stdout } = await run('wrk', plan('wrk', { threads: 1, connections: 1 }).slice(1), {
      timeout: 30_000,
    });
    expect(stdout).toMatch(/requests in/);
    expect(hits.allowed).toBeGreaterThan(0);
    expect(hits.elsewhere).toBe(0);
  }, 30_000);
});

describe('confineHost', () => {
  const dns =
    (table: Record<string, string[]>) =>
    async (h: string): Promise<string[]> =>
      table[h] ?? [];
  const resolve = dns({
    'imds.test': ['169.254.169.254'],
    'll6.test': ['2001:db8::1', 'fe80::1'],
    'aws6.test': ['fd00:ec2::254'],
    'ok.test': ['192.0.2.10'],
  });

  it.each(['http://imds.test/latest/meta-data', 'https://ll6.test/', 'http://aws6.test:80/'])(
    'refuses %s under * (it resolves to a link-local or metadata address)',
    async (target) => {
      await expect(confineHost(target, ['*'], resolve)).rejects.toThrow(/link-local or metadata address/);
    },
  );

  it('allows such a name only when the address is listed by itself', async () => {
    await expect(confineHost('http://imds.test/', ['*', '169.254.169.254'], resolve)).resolves.toBe(
      '169.254.169.254',
    );
    await expect(confineHost('http://imds.test/', ['169.254.0.0/16'], resolve)).resolves.toBe(
      '169.254.169.254',
    );
  });

  it('answers the address to connect to for names, nothing for IP literals and non-URL targets', async () => {
    await expect(confineHost('http://ok.test/', ['*'], resolve)).resolves.toBe('192.0.2.10');
    await expect(confineHost('http://192.0.2.1/', ['*'], resolve)).resolves.toBeNull();
    await expect(confineHost('/tmp/fio', ['*'], resolve)).resolves.toBeNull();
  });

  it('refuses a name that does not resolve (the tool would look it up again)', async () => {
    const failing = async () => Promise.reject(Object.assign(new Error('x'), { code: 'ENOTFOUND' }));
    await expect(confineHost('http://gone.test/', ['*'], failing)).rejects.toThrow(
      'host gone.test does not resolve (ENOTFOUND)',
    );
    await expect(confineHost('http://gone.test/', ['*'], async () => [])).rejects.toThrow(/does not resolve/);
  });
});
