import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlan, pinAddress, type TJobSpec } from './argv';
import { confineHost } from './confine';

// DNS rebinding with the real hey, wrk, pgbench and sysbench: the name answers 127.0.0.2 when the agent checks it and 127.0.0.1
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

describe('DB tools connect to the address that was checked', () => {
  // Plain TCP listeners: a connection is all that is asserted, so each is closed at once (the tool then fails).
  const hits = { checked: 0, rebound: 0 };
  const tcp = (key: keyof typeof hits) =>
    createTcpServer((s) => {
      hits[key]++;
      s.destroy();
    });
  const servers = [tcp('checked'), tcp('rebound')];
  let dbPort = 0;
  const tcpListen = (s: ReturnType<typeof tcp>, host: string, p: number) =>
    new Promise<number>((r) => s.listen(p, host, () => r((s.address() as AddressInfo).port)));
  beforeAll(async () => {
    dbPort = await tcpListen(servers[0]!, '127.0.0.2', 0);
    await tcpListen(servers[1]!, '127.0.0.1', dbPort);
  });
  afterAll(() => servers.forEach((s) => s.close()));

  async function runTool(tool: 'pgbench' | 'sysbench', target: string, params: Record<string, unknown>) {
    hits.checked = 0;
    hits.rebound = 0;
    const job: TJobSpec = { id: 'r1', tool, params, target, durationS: 1, warmupS: 0 };
    const limits = { allowedDirs: ['/tmp'], allowedHosts: ['*'], maxFileBytes: 1 };
    const plan = buildPlan(job, { secrets: {}, workDir: '/tmp', limits, secretDir: '/tmp/.s' });
    // The check sees 127.0.0.2; any later lookup (the system's) answers 127.0.0.1.
    let calls = 0;
    const resolver = async () => (calls++ === 0 ? ['127.0.0.2'] : ['127.0.0.1']);
    const address = await confineHost(job.target, limits.allowedHosts, resolver);
    const argv = pinAddress(plan, address).steps.find((s) => s.phase === 'main')!.argv;
    await run(tool, argv.slice(1), { timeout: 20_000 }).catch(() => undefined);
    return { argv, hits: { ...hits } };
  }

  it('pgbench: hostaddr is the checked address, the name kept as host', async () => {
    const { argv, hits } = await runTool(
      'pgbench',
      `postgresql://u@localhost:${dbPort}/d?sslmode=disable`,
      {},
    );
    expect(hits).toEqual({ checked: 1, rebound: 0 });
    expect(argv.at(-1)).toBe(`postgresql://u@localhost:${dbPort}/d?sslmode=disable&hostaddr=127.0.0.2`);
  }, 30_000);

  it('sysbench pgsql: --pgsql-host is the checked address', async () => {
    const target = `postgresql://u@localhost:${dbPort}/d`;
    const { argv, hits } = await runTool('sysbench', target, { test: 'oltp_read_only', prepare: false });
    expect(hits).toEqual({ checked: 1, rebound: 0 });
    expect(argv).toContain('--pgsql-host=127.0.0.2');
    expect(argv.some((a) => a.includes('localhost'))).toBe(false);
  }, 30_000);

  // MySQL's client takes `localhost` to mean its Unix socket (no lookup), so this case needs another name the
  // system resolves to 127.0.0.1: one from /etc/hosts.
  const name = readFileSync('/etc/hosts', 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim().split(/\s+/))
    .find(([ip, ...names]) => ip === '127.0.0.1' && names.some((n) => n !== 'localhost'))
    ?.find((n, i) => i > 0 && n !== 'localhost');
  it.skipIf(!name)(
    `sysbench mysql: --mysql-host is the checked address (${name})`,
    async () => {
      const { argv, hits } = await runTool('sysbench', `mysql://u@${name}:${dbPort}/d`, {
        test: 'oltp_read_only',
        prepare: false,
      });
      expect(hits).toEqual({ checked: 1, rebound: 0 });
      expect(argv).toContain('--mysql-host=127.0.0.2');
    },
    30_000,
  );
});

describe('pinAddress', () => {
  const plan = (tool: TJobSpec['tool'], target: string, params: Record<string, unknown> = {}) =>
    buildPlan(
      { id: 'r1', tool, params, target, durationS: 1, warmupS: 1 },
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

  it('adds hostaddr to every pgbench step, the URL otherwise kept', () => {
    const p = plan('pgbench', 'postgres://u@db.example:26257/d?sslmode=verify-full', { init: true });
    expect(pinAddress(p, '2001:db8::5').steps.map((s) => [s.phase, s.argv.at(-1)])).toEqual(
      ['pre', 'warmup', 'main'].map((phase) => [
        phase,
        'postgres://u@db.example:26257/d?sslmode=verify-full&hostaddr=2001%3Adb8%3A%3A5',
      ]),
    );
  });

  it('gives sysbench the address as its host, every step; MySQL localhost keeps its socket', () => {
    const params = { test: 'oltp_read_write', prepare: true };
    const hosts = (target: string) =>
      pinAddress(plan('sysbench', target, params), '192.0.2.1').steps.map((s) =>
        s.argv.find((a) => /^--(pgsql|mysql)-host=/.test(a)),
      );
    expect(hosts('postgresql://u@db.example/d')).toEqual(Array(3).fill('--pgsql-host=192.0.2.1'));
    expect(hosts('mysql://u@db.example/d')).toEqual(Array(3).fill('--mysql-host=192.0.2.1'));
    expect(hosts('mysql://u@localhost/d')).toEqual(Array(3).fill('--mysql-host=localhost'));
  });

  it('leaves https (SNI, certificate), IP literals and cockroach workload as they are', () => {
    for (const p of [
      plan('hey', 'https://db.example/'),
      plan('cockroach-workload', 'postgresql://u@db.example/d', { workload: 'kv' }),
    ])
      expect(pinAddress(p, '192.0.2.1')).toEqual(p);
    const literal = plan('hey', 'http://192.0.2.1/');
    expect(pinAddress(literal, null)).toEqual(literal);
  });
});
