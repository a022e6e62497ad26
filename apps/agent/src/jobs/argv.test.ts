import { validateWorkload, type TTool } from '@clusterscope/schema';
import { describe, expect, it } from 'vitest';
import { buildPlan, JobError, type TJobSpec } from './argv';

const HOSTILE = [
  '--foo',
  '; rm -rf /',
  '$(id)',
  '`id`',
  'a\nb',
  '-c 1 --file=/etc/passwd',
  '../../etc/passwd',
  '1 2',
  '\u0000',
];
const PG = 'postgresql://bench:pw@127.0.0.1:5432/bench';
const limits = {
  allowedDirs: ['/tmp/cs-jobs', '/var/tmp/fio'],
  allowedHosts: ['127.0.0.1', 'h', 'example.test', '10.0.0.5'],
  maxFileBytes: 2 * 1024 ** 3,
};
const opts = {
  secrets: { prod: PG, evil: '--help' },
  workDir: '/tmp/cs-jobs',
  limits,
  secretDir: '/tmp/cs-jobs/.secret-r1',
};
const job = (tool: TTool, params: Record<string, unknown>, target = PG): TJobSpec => ({
  id: 'r1',
  tool,
  params,
  target,
  durationS: 10,
  warmupS: 0,
});

describe('buildPlan', () => {
  it('builds pgbench argv with each value its own element and the password in the environment', () => {
    const plan = buildPlan(
      job('pgbench', { clients: 4, jobs: 2, builtin: 'select-only', init: true, scale: 3 }),
      opts,
    );
    expect(plan.steps.map((s) => s.phase)).toEqual(['pre', 'main']);
    expect(plan.steps[0].argv).toEqual([
      'pgbench',
      '-i',
      '-q',
      '-s',
      '3',
      'postgresql://bench@127.0.0.1:5432/bench',
    ]);
    expect(plan.steps[1].argv).toEqual([
      'pgbench', '-c', '4', '-j', '2', '-b', 'select-only', '-T', '10', '-P', '1',
      'postgresql://bench@127.0.0.1:5432/bench',
    ]); // prettier-ignore
    expect(plan.steps[1].env).toEqual({ PGPASSWORD: 'pw' });
  });

  it('builds sysbench oltp with cleanup/prepare pre-steps and pgsql options from the URL', () => {
    const plan = buildPlan(
      job('sysbench', { test: 'oltp_read_only', threads: 2, tables: 1, tableSize: 1000 }),
      opts,
    );
    expect(plan.steps.map((s) => s.argv.at(-1))).toEqual(['cleanup', 'prepare', 'run']);
    expect(plan.steps[2].argv).toContain('--db-driver=pgsql');
    expect(plan.steps[2].argv).toContain('--pgsql-user=bench');
  });

  it('never puts a database password on argv (visible in ps): it goes through the environment', async () => {
    const pw = 'S3cr%40t-pw';
    const plain = 'S3cr@t-pw';
    const pg = `postgresql://bench:${pw}@10.0.0.5:5432/bench`;
    const cases: [TJobSpec, Record<string, string>][] = [
      [job('pgbench', { init: true }, pg), { PGPASSWORD: plain }],
      [job('sysbench', { test: 'oltp_read_write' }, pg), { PGPASSWORD: plain }],
      [job('sysbench', { test: 'oltp_read_only' }, `mysql://bench:${pw}@10.0.0.5:3306/bench`), {}],
      [job('cockroach-workload', { workload: 'kv', init: true }, pg), { PGPASSWORD: plain }],
    ]; // prettier-ignore
    for (const [j, env] of cases) {
      const plan = buildPlan(j, opts);
      for (const s of plan.steps) {
        expect(s.argv.join(' '), j.tool).not.toMatch(/S3cr/);
        expect(s.env, `${j.tool} ${s.phase}`).toEqual(env);
      }
    }
    // sysbench mysql passes --mysql-password as given (no MYSQL_PWD): a 0600 --config-file carries it.
    const my = buildPlan(
      job('sysbench', { test: 'oltp_read_only' }, `mysql://bench:${pw}@10.0.0.5/bench`),
      opts,
    );
    expect(my.files).toEqual([
      { path: '/tmp/cs-jobs/.secret-r1/sysbench.cfg', content: `mysql-password=${plain}\n` },
    ]);
    expect(my.steps.every((s) => s.argv.includes('--config-file=/tmp/cs-jobs/.secret-r1/sysbench.cfg'))).toBe(
      true,
    );
  });

  it('resolves secret:<name> targets on the agent and checks the value like any target', () => {
    expect(buildPlan(job('pgbench', {}, 'secret:prod'), opts).steps[0].argv.at(-1)).toContain('127.0.0.1');
    expect(() => buildPlan(job('pgbench', {}, 'secret:missing'), opts)).toThrow(/not defined/);
    expect(() => buildPlan(job('pgbench', {}, 'secret:evil'), opts)).toThrow(JobError);
  });

  it('refuses every hostile value in every position (or keeps it inert)', () => {
    for (const v of HOSTILE) {
      const cases: [TTool, Record<string, unknown>, string?][] = [
        ['pgbench', { clients: v }],
        ['pgbench', { builtin: v }],
        ['pgbench', { protocol: v }],
        ['pgbench', { [v]: 1 }],
        ['pgbench', {}, v],
        ['pgbench', {}, `${PG}?sslkey=/etc/passwd`],
        ['sysbench', { test: v }],
        ['sysbench', { test: 'memory', memoryBlockSize: v }, ''],
        ['hey', { method: v }, 'http://127.0.0.1/'],
        ['hey', {}, v],
        ['wrk', { threads: v }, 'http://127.0.0.1/'],
        ['fio', { bs: v }, ''],
        ['fio', { rw: v }, ''],
        ['fio', {}, v],
        ['cockroach-workload', { workload: v }],
      ];
      for (const [tool, params, target] of cases) {
        expect(
          () => buildPlan(job(tool, params, target ?? PG), opts),
          `${tool} ${JSON.stringify(params)} ${target}`,
        ).toThrow(JobError);
        // The API's zod schemas refuse the same input before it is ever queued.
        expect(
          validateWorkload({ tool, params, target: target ?? PG }).ok,
          `${tool} ${JSON.stringify(params)}`,
        ).toBe(false);
      }
    }
  });

  it('never produces an argv element that starts a new option from a value, nor contains a newline', () => {
    const plans = [
      buildPlan(job('hey', { concurrency: 3, method: 'POST' }, 'http://127.0.0.1:3000/api/health'), opts),
      buildPlan(job('wrk', { threads: 2, connections: 4 }, 'https://example.test/x?a=1'), opts),
      buildPlan(job('fio', { rw: 'randrw', rwmixread: 70 }, '/var/tmp/fio'), opts),
      buildPlan(
        job(
          'cockroach-workload',
          { workload: 'kv', readPercent: 95, init: true },
          'postgresql://root@h:26257?sslmode=disable',
        ),
        opts,
      ),
      buildPlan(job('sysbench', { test: 'fileio', fileTestMode: 'rndrw', fileTotalSize: '64M' }, ''), opts),
    ];
    for (const p of plans)
      for (const s of p.steps) {
        expect(s.argv.every((a) => !/[\n\r\0]/.test(a))).toBe(true);
        expect(s.argv[0]).toBe(p.binary);
      }
    expect(plans[2].steps[0].argv).toContain('--directory=/var/tmp/fio');
  });
});
